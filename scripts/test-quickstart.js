#!/usr/bin/env node
// The README's quick start, as a new user runs it (part of `npm test`): copies the tree as a clean
// checkout would have it (tracked and new files; no .env, builds or packages) into a temporary
// directory, links the installed node_modules (the `npm ci` step) and the current build when its
// inputs are unchanged, runs the README's demo command against a fresh database and Redis queue
// prefix, then follows what it prints: the receiver command, the enrollment and the purchase,
// until the receiver reports a verified webhook. Exits 0 on success; every failure names its step.
const { spawn, spawnSync } = require('child_process');
const { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } = require('fs');
const net = require('net');
const { tmpdir } = require('os');
const { dirname, join } = require('path');
const { upToDate } = require('./build-inputs');

const root = join(__dirname, '..');
const DEADLINE_MS = Number(process.env.QUICKSTART_TIMEOUT_MS ?? 300_000);
const started = Date.now();
const children = [];
let dir;
let env;

function log(message) {
  process.stdout.write(`[quickstart ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
}

function fail(message, detail = '') {
  process.stdout.write(`\nquick-start test FAILED: ${message}\n${detail}\n`);
  cleanup().finally(() => process.exit(1));
}

async function cleanup() {
  for (const c of children.reverse()) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    process.kill(-c.pid, 'SIGINT'); // as Ctrl-C in its terminal
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid, 'SIGKILL');
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (env) await dropData(env).catch(() => undefined);
}

/** The run's database and queue keys go with it. */
async function dropData({ DATABASE_URL, QUEUE_PREFIX, REDIS_URL }) {
  const Redis = require('ioredis');
  const redis = new Redis(REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  try {
    for await (const keys of redis.scanStream({ match: `${QUEUE_PREFIX}:*`, count: 500 }))
      if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
  const url = new URL(DATABASE_URL);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const { Client } = require('pg');
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Starts a shell command in its own process group; collects its output. */
function start(command, env, cwd) {
  const child = spawn('bash', ['-c', command], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.output = '';
  child.stdout.on('data', (d) => (child.output += d));
  child.stderr.on('data', (d) => (child.output += d));
  children.push(child);
  return child;
}

async function until(probe, what, timeoutMs) {
  const end = Math.min(Date.now() + timeoutMs, started + DEADLINE_MS);
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function run(command, env, cwd) {
  const r = spawnSync('bash', ['-c', command], { cwd, env, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** The tree as a clone has it: tracked files plus new ones not ignored, as they are now. */
function cleanCheckout() {
  const ls = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (ls.status !== 0) throw new Error(`git ls-files failed: ${ls.stderr}`);
  dir = mkdtempSync(join(tmpdir(), 'offers-quickstart-'));
  let n = 0;
  for (const file of ls.stdout.split('\0').filter(Boolean)) {
    try {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      cpSync(join(root, file), join(dir, file));
      n++;
    } catch (e) {
      if (e.code !== 'ENOENT') throw e; // deleted in the working tree, not yet committed
    }
  }
  // The README's `npm ci`, already done for this tree: the same packages.
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(root, 'portal', 'node_modules'), join(dir, 'portal', 'node_modules'));
  return n;
}

async function main() {
  // 1. The README's command.
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const quick = readme.slice(readme.indexOf('## Quick start'));
  const command = /```bash\n(npm ci && npm run demo)\n```/.exec(quick)?.[1];
  if (!command) throw new Error('README "Quick start" no longer shows `npm ci && npm run demo`');

  // 2. A clean checkout, with packages; the build only when its inputs match the current one.
  const files = cleanCheckout();
  const reuse = upToDate(root);
  if (reuse) {
    cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
    cpSync(join(root, 'portal', 'dist'), join(dir, 'portal', 'dist'), { recursive: true });
  }
  log(`clean checkout of ${files} files in ${dir}; build ${reuse ? 'reused' : 'from scratch'}`);

  // 3. Fresh database and queue prefix, free ports; the user's environment otherwise.
  const base = new URL(
    process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/offers_test',
  );
  const dbName = `${base.pathname.slice(1)}_quickstart`;
  base.pathname = '/postgres';
  const { Client } = require('pg');
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
  base.pathname = `/${dbName}`;
  const [port, receiverPort, workerPort, widgetPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  env = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: base.toString(),
    QUEUE_PREFIX: `qs-${dbName}-${Date.now()}`,
    PORT: String(port),
    RECEIVER_PORT: String(receiverPort),
    WIDGET_DEMO_PORT: String(widgetPort),
    WORKER_HEALTH_PORT: String(workerPort),
    LOG_FORMAT: 'json',
  };
  for (const v of ['SECRETS_KEY', 'OPERATOR_TOKEN', 'TEST_DATABASE_URL', 'LOG_LEVEL'])
    delete env[v];

  // 4. `npm run demo` (the `npm ci` half is the linked node_modules), until it says it runs.
  const demo = start('npm run demo', env, dir);
  const printed = await until(
    () =>
      demo.exitCode !== null
        ? Promise.reject(new Error(`npm run demo exited (${demo.exitCode})`))
        : /The service is running[\s\S]*metrics: \S+\n/.exec(demo.output)?.[0],
    'the demo to print its instructions',
    DEADLINE_MS,
  ).catch((e) => fail(`${e.message}`, demo.output.slice(-4000)));
  if (!printed) return;
  log('the demo is running; following its instructions');
  const after = (label) => {
    const lines = printed.split('\n');
    const i = lines.findIndex((l) => l.includes(label));
    return i >= 0 ? lines[i + 1].trim() : undefined;
  };
  const receiverCmd = after('1. In a second terminal');
  const addCmd = after('2. Enroll a cardholder');
  const purchaseCmd = after('3. Post a purchase');
  const tryCmd = /Try:\s+(curl .*)/.exec(printed)?.[1];
  if (!receiverCmd || !addCmd || !purchaseCmd || !tryCmd)
    return fail(
      'the demo did not print the receiver, enrollment, purchase and try commands',
      printed,
    );

  // 5. The key works; the receiver starts; enroll; purchase.
  const me = run(tryCmd, env, dir);
  if (!/"institution"/.test(me.out)) return fail('the printed key did not work', me.out);
  const receiver = start(receiverCmd, env, dir);
  await until(() => /listening/.test(receiver.output), 'the receiver to listen', 10_000);
  const add = run(addCmd, env, dir);
  if (!/"status":"(added|already_added)"/.test(add.out))
    return fail('the enrollment failed', add.out);
  // At once: the printed purchase is stamped to the millisecond when it runs, after the enrollment.
  const purchase = run(purchaseCmd, env, dir);
  if (!/"status":"accepted"/.test(purchase.out))
    return fail('the purchase was not accepted', purchase.out);

  // 6. A verified webhook reaches the receiver.
  const verified = await until(
    () => /verified redemption\.completed .*/.exec(receiver.output)?.[0],
    'the verified webhook',
    30_000,
  ).catch((e) =>
    fail(e.message, `receiver:\n${receiver.output}\ndemo:\n${demo.output.slice(-3000)}`),
  );
  if (!verified) return;
  log(verified);
  if (/rejected/.test(receiver.output))
    return fail('the receiver rejected a request', receiver.output);

  // 7. Ctrl-C stops everything cleanly.
  await cleanup();
  if (/Called end on pool more than once/.test(demo.output))
    return fail('the demo did not stop cleanly', demo.output.slice(-2000));
  log(`passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(0);
}

main().catch((e) => fail(e.message, children.map((c) => c.output.slice(-2000)).join('\n---\n')));
