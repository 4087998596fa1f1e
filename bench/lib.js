// Shared benchmark plumbing: a dedicated database, the built api and worker as child processes,
// an open-model (fixed-rate) load generator, percentiles, peak RSS, and the results files.
const { spawn, spawnSync } = require('child_process');
const { existsSync, readFileSync, writeFileSync, mkdirSync } = require('fs');
const { join } = require('path');
const http = require('http');
const { Client, Pool } = require('pg');

const root = join(__dirname, '..');
const BENCH_DB =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/offers_bench';
const OPERATOR_TOKEN = 'op_bench_operator_token_0123456789abcdef';
const SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');

/** Environment for api and worker under benchmark: quiet logs, bench database, big limits. */
function benchEnv(extra = {}) {
  return {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: BENCH_DB,
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRETS_KEY,
    OPERATOR_TOKEN,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_DEFAULT_PER_MINUTE: '10000000',
    RATE_LIMIT_REPORTING_PER_MINUTE: '10000000',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WORKER_HEALTH_PORT: '0',
    // Queues of their own, so a bench never consumes another run's jobs.
    QUEUE_PREFIX: `bench-${new URL(BENCH_DB).pathname.slice(1)}`,
    ...extra,
  };
}

/** Builds the server bundles (bench measures the production build of the current sources). */
function ensureBuild() {
  if (process.env.BENCH_SKIP_BUILD === '1' && existsSync(join(root, 'dist/apps/api/main.js')))
    return;
  const r = spawnSync('npm', ['run', 'build:server'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

/** Drops and recreates the bench database and migrates it. */
async function resetDatabase() {
  ensureBuild();
  const admin = new URL(BENCH_DB);
  const name = admin.pathname.slice(1);
  // The bench drops and recreates its database: refuse any database not named for benchmarks.
  if (!/bench/.test(name))
    throw new Error(`refusing to reset database "${name}": its name must contain "bench"`);
  admin.pathname = '/postgres';
  const c = new Client({ connectionString: admin.toString() });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  const r = spawnSync(process.execPath, [join(root, 'dist/apps/cli/main.js'), 'migrate'], {
    cwd: root,
    env: benchEnv(),
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('migrate failed');
}

function pool(max = 8) {
  return new Pool({ connectionString: BENCH_DB, max });
}

/** Starts dist/apps/<app>/main.js and waits until it answers (api) or logs ready (worker). */
async function startApp(app, { port = 3900, env = {} } = {}) {
  // The worker says "worker ready" at info level; the api stays at warn so request logs do not
  // weigh on the measurements.
  const child = spawn(process.execPath, [join(root, `dist/apps/${app}/main.js`)], {
    cwd: root,
    env: benchEnv({
      PORT: String(port),
      ...(app === 'worker' ? { LOG_LEVEL: 'info' } : {}),
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited: ${output.slice(-2000)}`);
    if (app === 'api' ? await ping(port) : /worker ready/.test(output)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL'); // never leave a half-started process holding the port
      throw new Error(`${app} did not start: ${output.slice(-2000)}`);
    }
    await sleep(200);
  }
  return {
    child,
    port,
    peakRssMb: () => peakRssMb(child.pid),
    stop: () =>
      new Promise((resolve) =>
        child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill('SIGTERM')),
      ),
  };
}

function ping(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => (req.destroy(), resolve(false)));
  });
}

/** VmHWM: the peak resident set size of a process, in MiB. */
function peakRssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Math.round(Number(m[1]) / 1024) : null;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One HTTP request; resolves {status, body, ms}. */
function request(port, method, path, { headers = {}, body } = {}) {
  const payload =
    body === undefined
      ? undefined
      : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': payload.length }
            : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            body: Buffer.concat(chunks).toString(),
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          }),
        );
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/**
 * Open-model load: starts `fn(i)` every 1/rate seconds for `seconds`, whatever the latency
 * (so slow answers do not slow the arrival rate and hide queueing). Returns latencies.
 */
async function fixedRate({ rate, seconds, fn }) {
  const total = Math.round(rate * seconds);
  const latencies = [];
  let errors = 0;
  const started = Date.now();
  const inflight = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    inflight.push(
      fn(i).then(
        (r) => (r && r.ok === false ? errors++ : latencies.push(r.ms)),
        () => errors++,
      ),
    );
  }
  await Promise.all(inflight);
  const elapsed = (Date.now() - started) / 1000;
  return {
    sent: total,
    errors,
    achievedRps: round(latencies.length / elapsed),
    ...summarize(latencies),
  };
}

/** Closed-model load: `concurrency` loops calling fn until `count` calls are done. */
async function closedLoop({ concurrency, count, fn }) {
  let next = 0;
  const latencies = [];
  let errors = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        try {
          const r = await fn(i);
          if (r && r.ok === false) errors++;
          else latencies.push(r.ms);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  return {
    count,
    errors,
    seconds: round(elapsed),
    perSecond: round(latencies.length / elapsed),
    ...summarize(latencies),
  };
}

function summarize(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p) =>
    s.length ? round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]) : null;
  return { p50: at(50), p90: at(90), p99: at(99), max: s.length ? round(s[s.length - 1]) : null };
}

const round = (n) => Math.round(n * 100) / 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const RESULTS = join(__dirname, 'results');

/** Merges one benchmark's figures into latest.json and rewrites latest.md. */
function saveResults(name, data) {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, 'latest.json');
  const all = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  all[name] = {
    measured_at: new Date().toISOString(),
    machine: `${require('os').cpus().length} cores`,
    ...data,
  };
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
  const md = [
    '# Benchmark results',
    '',
    'Written by `npm run bench`; each section from its latest run.',
    '',
  ];
  for (const [section, figures] of Object.entries(all)) {
    md.push(`## ${section}`, '', '| metric | value |', '|---|---|');
    for (const [k, v] of Object.entries(flatten(figures))) md.push(`| ${k} | ${v} |`);
    md.push('');
  }
  writeFileSync(join(RESULTS, 'latest.md'), md.join('\n'));
  console.log(JSON.stringify({ [name]: all[name] }, null, 2));
}

function flatten(o, prefix = '') {
  const out = {};
  for (const [k, v] of Object.entries(o)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v, key));
    else out[key] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Creates an institution and an all-scope key through the admin API of a running api. */
async function createInstitution(port, body = { name: 'Bench Bank', plan: 'enterprise' }) {
  const op = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const inst = JSON.parse(
    (await request(port, 'POST', '/admin/api/v1/institutions', { headers: op, body })).body,
  );
  const key = JSON.parse(
    (
      await request(port, 'POST', `/admin/api/v1/institutions/${inst.id}/api-keys`, {
        headers: op,
        body: { name: 'bench' },
      })
    ).body,
  );
  return { institution: inst, apiKey: key.key, auth: { authorization: `Bearer ${key.key}` } };
}

module.exports = {
  BENCH_DB,
  OPERATOR_TOKEN,
  benchEnv,
  resetDatabase,
  pool,
  startApp,
  request,
  fixedRate,
  closedLoop,
  summarize,
  saveResults,
  createInstitution,
  sleep,
  round,
};
