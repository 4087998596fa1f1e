#!/usr/bin/env node
// Runs an operator command of the cli app (migrate, seed-demo, openapi, bench), building the
// server bundles first when any source is newer than the build.
const { spawnSync } = require('child_process');
const { existsSync, statSync, readdirSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const bundle = join(root, 'dist', 'apps', 'cli', 'main.js');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (p.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function ensureBuilt() {
  const built = existsSync(bundle) ? statSync(bundle).mtimeMs : 0;
  const sources = Math.max(newestSource(join(root, 'apps')), newestSource(join(root, 'libs')));
  if (built >= sources) return;
  const r = spawnSync(
    process.execPath,
    [require.resolve('webpack-cli/bin/cli.js'), '--config', join(root, 'webpack.config.js')],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const [command, ...args] = process.argv.slice(2);
if (command === 'bench') {
  const r = spawnSync(process.execPath, [join(root, 'bench', 'run.js'), ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}
ensureBuilt();
const r = spawnSync(process.execPath, [bundle, command, ...args], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
