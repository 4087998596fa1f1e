#!/usr/bin/env node
// `npm run demo`: everything a newcomer needs in one command, for development on one machine.
// Checks PostgreSQL and Redis, builds (only when a source changed since the last build), creates
// and migrates the database, seeds a demo institution whose webhook points to a local receiver,
// starts api + worker, and prints what to try: keys, merchants, a purchase that matches a demo
// offer, the receiver command, the operator token and the admin API.
const { spawn, spawnSync } = require('child_process');
const { randomBytes } = require('crypto');
const http = require('http');
const { join } = require('path');
const { sourceHash, upToDate, writeStamp } = require('./build-inputs');

const root = join(__dirname, '..');
const port = Number(process.env.PORT ?? 3000);
const receiverPort = Number(process.env.RECEIVER_PORT ?? 4100);
// The widget demo page keeps one port (one origin listed) from run to run.
const widgetPort = Number(process.env.WIDGET_DEMO_PORT ?? 4200);
const base = `http://localhost:${port}`;

let stopServices = null; // set once api and worker run: a later failure stops them too

function fail(message) {
  process.stderr.write(`\n${message}\n`);
  if (stopServices) stopServices(1);
  else process.exit(1);
}

if ((process.env.NODE_ENV ?? 'development') !== 'development') {
  fail('npm run demo is for development only (it allows http and private webhook URLs).');
}
// The demo's webhook receiver listens on 127.0.0.1 over http: allowed in development only.
const env = {
  ...process.env,
  NODE_ENV: 'development',
  PORT: String(port),
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
};

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
    env,
    stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  if (r.status !== 0) fail(`${title} failed`);
  return r.stdout;
}

function buildIfChanged() {
  if (upToDate(root)) {
    process.stdout.write('\n> build: up to date (no source changed since the last build)\n');
    return;
  }
  const hash = sourceHash(root); // before building: an edit made meanwhile rebuilds next time
  step('build (api, worker, portal, widget)', 'npm', ['run', 'build']);
  writeStamp(root, hash);
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

/** api and worker in their own process group: Ctrl-C reaches them once, from here. */
function startServices() {
  const children = ['api', 'worker'].map((app) =>
    spawn(process.execPath, [join(root, `dist/apps/${app}/main.js`)], {
      cwd: root,
      env,
      stdio: 'inherit',
      detached: true,
    }),
  );
  let stopping = false;
  const stop = (code) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nstopping api and worker…\n');
    const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
    if (!running.length) process.exit(code);
    let left = running.length;
    for (const c of running) {
      c.once('exit', () => --left === 0 && process.exit(code));
      c.kill('SIGTERM');
    }
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  children.forEach((c, i) =>
    c.on('exit', (code) => {
      if (stopping) return;
      process.stderr.write(`\nthe ${['api', 'worker'][i]} exited (code ${code}); stopping\n`);
      stop(1);
    }),
  );
  stopServices = stop;
}

function operatorTokenHint() {
  if (process.env.OPERATOR_TOKEN) return { where: 'your environment', read: '$OPERATOR_TOKEN' };
  return { where: '.env (generated on first run)', read: "$(sed -n 's/^OPERATOR_TOKEN=//p' .env)" };
}

/** The lines printed once the service is ready; one section per topic, each easy to extend. */
function instructions(seed, { widgetUrl }) {
  const key = seed['api key'];
  const secret = seed['signing secret'];
  const offerId = seed['demo offer'].split(/\s+/)[0];
  const cardholder = `chk_demo_${randomBytes(4).toString('hex')}`;
  const auth = `-sS -H "Authorization: Bearer ${key}"`;
  const json = "-H 'content-type: application/json'";
  // Stamped when the command runs, to the millisecond by node: `date` stamps to the second, and a
  // purchase in the enrollment's second lay before it (enrolled_after_purchase, no match).
  const shell = { NOW_MS: 'Date.now()', NOW_ISO: 'new Date().toISOString()' };
  const purchase = {
    transaction_ref: 'demo-NOW_MS',
    cardholder_token: cardholder,
    card_token: `card_${cardholder}`,
    amount: 40,
    currency: 'USD',
    transacted_at: 'NOW_ISO',
    merchant_identifier: 'demo-pix-cafe-central',
    merchant_identifier_type: 'pix_key',
  };
  const op = operatorTokenHint();
  return [
    [
      'The service is running (Ctrl-C stops it).',
      `  Swagger docs:   ${base}/docs`,
      `  Portal:         ${base}/portal/   (admin@demo-bank.example / demo-password-123)`,
      `  API key:        ${key}`,
      `  Widget demo:    ${widgetUrl}   (a bank page on another origin, session minted server-side)`,
      `  Try:            curl ${auth} ${base}/api/v1/me`,
      `  Signing secret: ${secret}   (webhook URL ${seed['webhook url']})`,
    ],
    ['Demo merchants (post purchases with these identifiers):', ...seed.merchants],
    [
      'A verified webhook in three steps. Development only: the demo runs with',
      'WEBHOOK_ALLOW_PRIVATE_URLS=true, so its http://127.0.0.1 receiver is accepted (in production',
      'webhook URLs must be https and public). The demo set the webhook URL and a new signing secret.',
      '  1. In a second terminal, start the receiver (it verifies every signature):',
      `       WEBHOOK_SECRET=${secret} node scripts/webhook-receiver.js ${receiverPort}`,
      `  2. Enroll a cardholder in "${seed['demo offer'].replace(/^\S+\s+/, '')}":`,
      `       curl -X POST ${base}/api/v1/offers/${offerId}/add ${auth} ${json} -d '{"cardholder_token":"${cardholder}"}'`,
      '  3. Post a purchase at Café Central that matches it (5% of 40 USD):',
      `       curl -X POST ${base}/api/v1/transactions ${auth} ${json} -d '${JSON.stringify(purchase).replace(/NOW_MS|NOW_ISO/g, (k) => `'"$(node -p '${shell[k]}')"'`)}'`,
      '  The receiver prints "verified redemption.completed …" within seconds; the portal shows the',
      '  delivery under Webhooks. The whole integration: docs/api.md.',
    ],
    [
      `Operators: the admin API (${base}/admin/api/v1, Swagger tag Admin) takes the operator token,`,
      `OPERATOR_TOKEN in ${op.where}:`,
      `  curl -H "Authorization: Bearer ${op.read}" ${base}/admin/api/v1/institutions`,
      `Queue dashboard: ${base}/admin/queues (any user name, the operator token as password);`,
      `metrics: ${base}/metrics.`,
    ],
  ];
}

/** Reads the seed's "label: value" lines and its indented merchant table. */
function parseSeed(text) {
  const seed = { merchants: [] };
  for (const line of text.split('\n')) {
    const m = /^([a-z][a-z ]+):\s+(.*)$/.exec(line);
    if (m) seed[m[1]] = m[2].trim();
    else if (/^ {2}\S/.test(line)) seed.merchants.push(line);
  }
  return seed;
}

async function main() {
  await reachable();
  buildIfChanged();
  const seeded = step(
    'migrate and seed the demo institution',
    process.execPath,
    [
      join(root, 'dist/apps/cli/main.js'),
      'seed-demo',
      '--webhook-url',
      `http://127.0.0.1:${receiverPort}/webhook`,
    ],
    { capture: true },
  );
  // Migration lines and the institution; keys and merchants follow in the summary below.
  const lines = seeded.split('\n');
  process.stdout.write(
    `${lines
      .slice(
        0,
        lines.findIndex((l) => /^portal login:/.test(l)),
      )
      .join('\n')}\n`,
  );

  startServices();
  const deadline = Date.now() + 60_000;
  while (!(await ready())) {
    if (Date.now() > deadline) fail('the api did not become ready; see the log above');
    await new Promise((r) => setTimeout(r, 300));
  }
  const seed = parseSeed(seeded);
  // A bank page on another origin showing the widget (scripts/widget-demo-host.js).
  const host = await require('./widget-demo-host').start({
    apiBase: base,
    apiKey: seed['api key'],
    port: widgetPort,
  });
  process.on('exit', host.close);
  const sections = instructions(seed, { widgetUrl: host.url });
  process.stdout.write(`\n${sections.map((s) => s.join('\n')).join('\n\n')}\n\n`);
}

main().catch((e) => fail(e.message));
