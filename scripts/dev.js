#!/usr/bin/env node
// `npm run dev`: api + worker + portal in watch mode, for working on the code.
// webpack rebuilds the server bundles on every change and `node --watch` restarts the api and the
// worker when their bundle changes; Vite serves the portal with hot reload on its own port and
// proxies /portal/api to the api on PORT. Lines are labelled by app (pretty logs in development).
// Run `npm run demo` once first for a migrated, seeded database.
const { spawn } = require('child_process');
const { existsSync, readFileSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const port = process.env.PORT ?? '3000';
const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development', PORT: port };
const children = [];

function start(name, cmd, args, options = {}) {
  const child = spawn(cmd, args, { cwd: root, env, stdio: 'inherit', detached: true, ...options });
  child.on('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`[dev] ${name} exited (${signal ?? code})\n`);
  });
  children.push(child);
  return child;
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  let left = children.filter((c) => c.exitCode === null && c.signalCode === null);
  if (!left.length) process.exit(0);
  for (const c of left) {
    c.once('exit', () => {
      left = left.filter((x) => x !== c);
      if (!left.length) process.exit(0);
    });
    process.kill(-c.pid, 'SIGTERM'); // the child's whole group (vite and webpack have helpers)
  }
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

function developmentSecretsReady() {
  if (env.NODE_ENV !== 'development' || (env.SECRETS_KEY && env.OPERATOR_TOKEN)) return true;
  const file = join(root, '.env');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  return /^SECRETS_KEY=/m.test(text) && /^OPERATOR_TOKEN=/m.test(text);
}

const bundles = ['api', 'worker'].map((app) => join(root, 'dist', 'apps', app, 'main.js'));
start('webpack', process.execPath, [
  require.resolve('webpack-cli/bin/cli.js'),
  '--config',
  join(root, 'webpack.config.js'),
  '--watch',
]);

// The apps start once the bundles exist; node --watch restarts them whenever webpack rewrites one.
const timer = setInterval(() => {
  if (!bundles.every((b) => existsSync(b))) return;
  clearInterval(timer);
  start('api', process.execPath, ['--watch', '--watch-preserve-output', bundles[0]]);
  // On a first run the api generates the development secrets into .env: the worker starts once
  // they are there, so both processes read the same keys.
  const secrets = setInterval(() => {
    if (!developmentSecretsReady()) return;
    clearInterval(secrets);
    start('worker', process.execPath, ['--watch', '--watch-preserve-output', bundles[1]]);
  }, 200);
  start('portal', 'npm', ['run', 'dev', '-w', 'portal']);
  process.stdout.write(
    `[dev] api on http://localhost:${port} (Swagger /docs); portal with hot reload on the Vite URL below\n`,
  );
}, 300);
