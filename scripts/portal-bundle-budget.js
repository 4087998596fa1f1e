#!/usr/bin/env node
// After the portal's build: the minified JS that sign-in and the dashboard load (the entry chunk,
// what it imports, and the dashboard's chunk if it is split off), per file and in total, from
// Vite's manifest. Fails above the budget; every other page is a chunk loaded when first visited.
const { readFileSync, statSync } = require('fs');
const { join } = require('path');

const BUDGET_BYTES = 250 * 1000; // kB as Vite reports them
const FIRST_LOAD = ['index.html', 'src/pages/dashboard.tsx'];
const dist = join(__dirname, '..', 'portal', 'dist');
const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));

const files = new Set();
const visit = (key) => {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) visit(imported);
};
for (const [key, chunk] of Object.entries(manifest))
  if (FIRST_LOAD.includes(chunk.src ?? key)) visit(key);
if (!files.size) throw new Error(`no chunk for ${FIRST_LOAD.join(', ')} in the portal's manifest`);

const sizes = [...files].map((f) => [f, statSync(join(dist, f)).size]);
const total = sizes.reduce((sum, [, n]) => sum + n, 0);
const kB = (n) => `${(n / 1000).toFixed(1)} kB`;
for (const [f, n] of sizes) process.stdout.write(`portal first load: ${f} ${kB(n)}\n`);
process.stdout.write(
  `portal first load (sign-in, dashboard): ${kB(total)} of minified JS (budget ${kB(BUDGET_BYTES)})\n`,
);
if (total > BUDGET_BYTES) {
  process.stderr.write(`portal first load over its budget: ${kB(total)} > ${kB(BUDGET_BYTES)}\n`);
  process.exit(1);
}
