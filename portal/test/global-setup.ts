// Starts what the browser tests run against: migrates a fresh database, then the built api and
// worker as child processes (own queue prefix). Tests read the address and operator token from
// the environment set here; the returned function stops both.
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import { existsSync } from 'fs';
import net from 'net';
import { join } from 'path';
import { Client } from 'pg';

const root = join(__dirname, '..', '..');
const DB =
  process.env.PORTAL_TEST_DATABASE_URL ??
  'postgres://postgres:postgres@127.0.0.1:5432/offers_test_portal_browser';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function ensureBuilt() {
  const need = [
    'dist/apps/api/main.js',
    'dist/apps/worker/main.js',
    'dist/apps/cli/main.js',
    'portal/dist/index.html',
  ].filter((f) => !existsSync(join(root, f)));
  if (!need.length) return;
  process.stdout.write(`building (${need.join(', ')} missing)…\n`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

async function resetDatabase(env: NodeJS.ProcessEnv) {
  const admin = new URL(DB);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const c = new Client({ connectionString: admin.toString() });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  const r = spawnSync(process.execPath, [join(root, 'dist/apps/cli/main.js'), 'migrate'], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`migrate failed: ${r.stderr || r.stdout}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ok = (url: string) =>
  fetch(url).then(
    (r) => r.ok,
    () => false,
  );

async function start(app: 'api' | 'worker', env: NodeJS.ProcessEnv, port: number) {
  // The worker says "worker ready" at info level; output is kept and shown only on failure.
  const child = spawn(process.execPath, [join(root, `dist/apps/${app}/main.js`)], {
    cwd: root,
    env: { ...env, LOG_LEVEL: app === 'worker' ? 'info' : 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited: ${output.slice(-2000)}`);
    if (app === 'api' ? await ok(`http://127.0.0.1:${port}/health`) : /worker ready/.test(output))
      return child;
    if (Date.now() > deadline) throw new Error(`${app} did not start: ${output.slice(-2000)}`);
    await sleep(200);
  }
}

function stop(c: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (c.exitCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
    setTimeout(() => c.kill('SIGKILL'), 8000).unref();
  });
}

export default async function globalSetup() {
  ensureBuilt();
  const port = await freePort();
  const queuePrefix = `portal-browser-${process.pid}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    DATABASE_URL: DB,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRETS_KEY: Buffer.alloc(32, 11).toString('base64'),
    OPERATOR_TOKEN: `op_${randomBytes(24).toString('hex')}`,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN_ON_BOOT: 'false',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_BASE_MS: '50',
    WORKER_HEALTH_PORT: '0',
    QUEUE_PREFIX: queuePrefix,
    MATCH_RELAY_INTERVAL_MS: '1000',
    MATCH_RELAY_GRACE_MS: '2000',
  };
  await resetDatabase(env);
  const children: ChildProcess[] = [];
  try {
    children.push(await start('api', env, port));
    children.push(await start('worker', env, port));
  } catch (e) {
    await Promise.all(children.map(stop));
    throw e;
  }
  // Read by the fixtures in every worker process.
  process.env.PORTAL_TEST_BASE_URL = `http://127.0.0.1:${port}`;
  process.env.PORTAL_TEST_OPERATOR_TOKEN = env.OPERATOR_TOKEN;
  process.env.PORTAL_TEST_QUEUE_PREFIX = queuePrefix;
  process.env.PORTAL_TEST_REDIS_URL = env.REDIS_URL;
  process.env.PORTAL_TEST_DB = DB;
  return async () => {
    await Promise.all(children.map(stop));
  };
}
