#!/usr/bin/env node
// `npm run bench [-- <name> ...]`: runs the named benchmarks (all when none is named) against a
// dedicated database, and writes bench/results/latest.json and bench/results/latest.md.
const { readdirSync } = require('fs');
const { join } = require('path');

const available = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.js'))
  .map((f) => f.replace(/\.bench\.js$/, ''))
  .sort();

async function main() {
  const asked = process.argv.slice(2);
  const names = asked.length ? asked : available;
  for (const name of names) {
    if (!available.includes(name)) {
      console.error(`unknown benchmark "${name}"; available: ${available.join(', ')}`);
      process.exit(2);
    }
  }
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
