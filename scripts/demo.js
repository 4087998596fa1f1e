#!/usr/bin/env node
// `npm run demo`: everything a newcomer needs in one command. Checks PostgreSQL and Redis,
// creates and migrates the database, seeds a demo institution, builds, starts api + worker,
// and prints the Swagger URL, the portal URL, an API key and a portal login.
const { spawn, spawnSync } = require('child_process');
const http = require('http');
const { join } = require('path');

const root = join(__dirname, '..');
const port = Number(process.env.PORT ?? 3000);

function fail(message) {
  process.stderr.write(`\n${message}\n`);
  process.exit(1);
}

async function reachable() {
  const { Client } = require('pg');
  const Redis = require('ioredis');
  const dbUrl = new URL(
    process.env.DATABASE_URL ?? 'postgres://postgres:postgres@localhost:5432/offers',
  );
  dbUrl.pathname = '/postgres';
  const pg = new Client({ connectionString: dbUrl.toString(), connectionTimeoutMillis: 3000 });
  try {
    await pg.connect();
    await pg.end();
  } catch (e) {
    fail(
      `PostgreSQL is not reachable at ${dbUrl.host} (${e.code ?? e.message}).\n` +
        'Start it: `docker compose up -d postgres redis`, or on Debian `pg_ctlcluster <version> main start`,\n' +
        'or point DATABASE_URL at your server.',
    );
  }
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://localhost:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 3000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    redis.disconnect();
  } catch (e) {
    fail(
      `Redis is not reachable (${e.code ?? e.message}).\n` +
        'Start it: `docker compose up -d redis`, or `redis-server --daemonize yes`, or point REDIS_URL at your server.',
    );
  }
}

function step(title, cmd, args, options = {}) {
  process.stdout.write(`\n> ${title}\n`);
  const r = spawnSync(cmd, args, {
    cwd: root,
    stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  if (r.status !== 0) fail(`${title} failed`);
  return r.stdout;
}

function ready() {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/ready', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => (req.destroy(), resolve(false)));
  });
}

async function main() {
  await reachable();
  step('build (api, worker, portal)', 'npm', ['run', 'build']);
  const seeded = step(
    'migrate and seed the demo institution',
    process.execPath,
    [join(root, 'dist/apps/cli/main.js'), 'seed-demo'],
    { capture: true },
  );
  process.stdout.write(seeded);

  const children = ['api', 'worker'].map((app) =>
    spawn(process.execPath, [join(root, `dist/apps/${app}/main.js`)], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, PORT: String(port) },
    }),
  );
  const stop = () => children.forEach((c) => c.exitCode === null && c.kill('SIGTERM'));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  children.forEach((c) =>
    c.on('exit', (code) => code && (stop(), fail(`a service exited with code ${code}`))),
  );

  for (let i = 0; i < 60 && !(await ready()); i++) await new Promise((r) => setTimeout(r, 500));
  if (!(await ready())) fail('the api did not become ready; see the log above');
  const key = /api key:\s+(\S+)/.exec(seeded)?.[1];
  // A bank page on another origin showing the widget (scripts/widget-demo-host.js).
  const host = await require('./widget-demo-host').start({
    apiBase: `http://localhost:${port}`,
    apiKey: key,
  });
  process.on('exit', host.close);
  process.stdout.write(
    [
      '',
      'The service is running (Ctrl-C stops it).',
      `  Swagger docs:  http://localhost:${port}/docs`,
      `  Portal:        http://localhost:${port}/portal/   (admin@demo-bank.example / demo-password-123)`,
      `  API key:       ${key}`,
      `  Widget demo:   ${host.url}   (a bank page on another origin, session minted server-side)`,
      `  Try:           curl -H "Authorization: Bearer ${key}" http://localhost:${port}/api/v1/me`,
      '',
    ].join('\n'),
  );
}

main().catch((e) => fail(e.message));
