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

/**
 * Environment for api and worker under benchmark: production mode with the production log level
 * (LOG_LEVEL unset: info, one line per request), the bench database, and rate limits raised so the
 * load is not refused (the limiter still makes its Redis round trip on every request).
 */
function benchEnv(extra = {}) {
  return {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: BENCH_DB,
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRETS_KEY,
    OPERATOR_TOKEN,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
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

/** The bench's own connections (seeding, the batch anchor): JIT off, as the service's are. */
function pool(max = 8) {
  return new Pool({ connectionString: BENCH_DB, max, options: '-c jit=off' });
}

/**
 * The Node.js options production runs the app with: NODE_OPTIONS of its Kubernetes Deployment
 * (heap limits), so the bench measures memory and GC as deployed.
 */
function productionNodeOptions(app) {
  const YAML = require('yaml');
  const file = join(root, `deploy/kubernetes/base/${app}-deployment.yaml`);
  const deployment = YAML.parse(readFileSync(file, 'utf8'));
  const env = deployment.spec.template.spec.containers[0].env ?? [];
  const value = env.find((e) => e.name === 'NODE_OPTIONS')?.value;
  if (!value) throw new Error(`${file}: no NODE_OPTIONS`);
  return value;
}

/**
 * Starts dist/apps/<app>/main.js and waits until it answers (api) or logs ready (worker). Its
 * stdout and stderr go to a file (as production hands them to a collector), so the bench process
 * does not buffer them; `logFile` says where.
 */
async function startApp(app, { port = 3900, env = {}, nodeArgs = [] } = {}) {
  // Another run on this machine may hold the port: its api would answer our readiness ping.
  if (app === 'api' && (await ping(port)))
    throw new Error(`port ${port} is in use (another bench?): set BENCH_PORT`);
  const logFile = join(require('os').tmpdir(), `bench-${app}-${process.pid}-${port}.log`);
  const fd = require('fs').openSync(logFile, 'w');
  // BENCH_CPU_PROF=<dir>: every started process writes a V8 CPU profile there when it stops.
  const prof = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const child = spawn(
    process.execPath,
    [...prof, ...nodeArgs, join(root, `dist/apps/${app}/main.js`)],
    {
      cwd: root,
      env: benchEnv({ PORT: String(port), NODE_OPTIONS: productionNodeOptions(app), ...env }),
      stdio: ['ignore', fd, fd],
    },
  );
  require('fs').closeSync(fd);
  const output = () => readFileSync(logFile, 'utf8');
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited: ${output().slice(-2000)}`);
    if (app === 'api' ? await ping(port) : /worker ready/.test(output())) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL'); // never leave a half-started process holding the port
      throw new Error(`${app} did not start: ${output().slice(-2000)}`);
    }
    await sleep(200);
  }
  return {
    child,
    port,
    logFile,
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

/** utime + stime of a process in clock ticks (100 per second), 0 when it is gone. */
function cpuTicks(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

/** Busy share of all cores since the previous call (reads /proc/stat). */
function machineCpu() {
  const f = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) };
}

/**
 * CPU meter over a phase: `pids` is {name: pid | () => pid[]}. The returned function gives, per
 * name, the CPU milliseconds spent since the meter started, plus the machine's busy share.
 */
function cpuMeter(pids) {
  const list = (v) => (typeof v === 'function' ? v() : [v]);
  const start = {};
  for (const [k, v] of Object.entries(pids))
    start[k] = new Map(list(v).map((pid) => [pid, cpuTicks(pid)]));
  const m0 = machineCpu();
  return () => {
    const out = {};
    for (const [k, v] of Object.entries(pids)) {
      let ticks = 0;
      // Only processes alive at both ends count (a backend that came or went is left out).
      for (const pid of list(v)) {
        const end = cpuTicks(pid);
        if (start[k].has(pid) && end >= start[k].get(pid)) ticks += end - start[k].get(pid);
      }
      out[k] = ticks * 10;
    }
    const m1 = machineCpu();
    out.machine_busy_pct = round((1 - (m1.idle - m0.idle) / (m1.total - m0.total)) * 100);
    return out;
  };
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
  // The production section first: its goal table is what a reader wants at a glance.
  const sections = Object.entries(all).sort(([a], [b]) =>
    a === 'production' ? -1 : b === 'production' ? 1 : 0,
  );
  for (const [section, figures] of sections) {
    const { table, ...rest } = figures;
    md.push(`## ${section}`, '');
    if (Array.isArray(table)) {
      md.push(
        `Measured ${figures.measured_at} on ${figures.machine}, ${figures.mode ?? ''}. ${figures.conditions ?? ''}.`,
        '',
        '| figure | value | anchor | ratio | goal | met | bound (measured in the same run, where missed) |',
        '|---|---|---|---|---|---|---|',
      );
      for (const x of table)
        md.push(
          `| ${x.figure} | ${x.value} | ${x.anchor || '—'} | ${x.ratio ?? '—'} | ${x.goal} | ${x.met ? 'yes' : '**no**'} | ${x.met ? '' : (x.bound ?? '')} |`,
        );
      md.push('', '<details><summary>all figures</summary>', '');
    } else {
      // Kept from the named bench's own latest run (`npm run bench` does not rerun it).
      md.push(
        `From \`npm run bench -- ${section}\`, measured ${figures.measured_at}: its own conditions, not the production bench's.`,
        '',
      );
    }
    md.push('| metric | value |', '|---|---|');
    for (const [k, v] of Object.entries(flatten(rest))) md.push(`| ${k} | ${v} |`);
    md.push('');
    if (Array.isArray(table)) md.push('</details>', '');
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
  const created = await request(port, 'POST', '/admin/api/v1/institutions', { headers: op, body });
  if (created.status !== 201)
    throw new Error(`create institution: ${created.status} ${created.body}`);
  const inst = JSON.parse(created.body);
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

/** Deletes every Redis key under a queue prefix of the bench's own (a run's queues, once it is done). */
async function dropQueuePrefix(prefix) {
  if (!prefix.startsWith('bench-')) throw new Error(`refusing to drop queue prefix "${prefix}"`);
  const Redis = require('ioredis');
  const redis = new Redis(benchEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Bytes of a table with its partitions and indexes (pg_partition_tree is empty for a plain table). */
async function tableBytes(db, table) {
  const { rows } = await db.query(
    `SELECT coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree(to_regclass($1))),
                     pg_total_relation_size(to_regclass($1)))::float8 AS bytes`,
    [table],
  );
  return rows[0].bytes;
}

module.exports = {
  ensureBuild,
  tableBytes,
  dropQueuePrefix,
  BENCH_DB,
  cpuTicks,
  cpuMeter,
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
