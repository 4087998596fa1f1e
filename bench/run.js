#!/usr/bin/env node
// `npm run bench [-- [--quick] <name> ...]`: runs the named benchmarks against a dedicated
// database and writes bench/results/latest.json and bench/results/latest.md. With no name, the
// production bench (every goal, api and worker running, each figure next to its anchor); the
// others (ingest, feed, webhooks, reporting) by name. --quick: the production bench on small data
// with short phases, for development on a shared machine (figures not comparable with a full
// run); the named benches have no quick mode and run in full.
const { readdirSync } = require('fs');
const { join } = require('path');

const available = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.js'))
  .map((f) => f.replace(/\.bench\.js$/, ''))
  .sort();

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--quick')) process.env.BENCH_QUICK = '1';
  const asked = args.filter((a) => a !== '--quick');
  const names = asked.length ? asked : ['production'];
  for (const name of names) {
    if (!available.includes(name)) {
      console.error(`unknown benchmark "${name}"; available: ${available.join(', ')}`);
      process.exit(2);
    }
  }
  if (process.env.BENCH_QUICK === '1' && names.some((n) => n !== 'production' && n !== 'mixed'))
    console.log(
      '--quick shortens the production and mixed benches only; the named benches run in full',
    );
  for (const name of names) {
    console.log(`\n### bench ${name}`);
    await require(join(__dirname, `${name}.bench.js`)).run();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
