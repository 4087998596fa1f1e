#!/usr/bin/env node
// The build's inputs and their content hash, kept beside the build (dist/.build-inputs.sha256)
// by `npm run build`: `npm run demo` and the quick-start test skip the build when no input
// changed, even in a copy of the tree (content, not timestamps). `node scripts/build-inputs.js
// --stamp` records the hash of the tree as it is now.
const { createHash } = require('crypto');
const { existsSync, readFileSync, readdirSync, statSync, writeFileSync } = require('fs');
const { join, relative } = require('path');

const INPUTS = [
  'apps',
  'libs',
  'portal',
  'widget',
  'openapi',
  'package-lock.json',
  'webpack.config.js',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build-widget.js',
];
const NOT_INPUTS = new Set([
  'node_modules',
  'dist',
  'test-output',
  'test-results',
  'playwright-report',
  '.vite',
]);
const OUTPUTS = [
  'dist/apps/api/main.js',
  'dist/apps/worker/main.js',
  'dist/apps/cli/main.js',
  'portal/dist/index.html',
  'dist/widget/offers-widget.js',
];

function sourceHash(root) {
  const hash = createHash('sha256');
  const walk = (p) => {
    const entries = readdirSync(p, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const e of entries) {
      if (NOT_INPUTS.has(e.name)) continue;
      const q = join(p, e.name);
      if (e.isDirectory()) walk(q);
      else if (e.isFile()) hash.update(relative(root, q)).update('\0').update(readFileSync(q));
    }
  };
  for (const input of INPUTS) {
    const p = join(root, input);
    if (!existsSync(p)) continue;
    if (statSync(p).isDirectory()) walk(p);
    else hash.update(input).update('\0').update(readFileSync(p));
  }
  return hash.digest('hex');
}

const stampFile = (root) => join(root, 'dist', '.build-inputs.sha256');

/** True when every output exists and was built from exactly these inputs. */
function upToDate(root) {
  const stamp = stampFile(root);
  return (
    OUTPUTS.every((f) => existsSync(join(root, f))) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === sourceHash(root)
  );
}

function writeStamp(root, hash = sourceHash(root)) {
  writeFileSync(stampFile(root), `${hash}\n`);
}

module.exports = { sourceHash, upToDate, writeStamp, OUTPUTS };

if (require.main === module && process.argv.includes('--stamp')) writeStamp(join(__dirname, '..'));
