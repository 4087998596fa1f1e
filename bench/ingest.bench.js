// `npm run bench -- ingest`: transaction ingestion and matching (issue 4).
//
// 1. Batch ingestion: POST /api/v1/transactions/batch, 1,000 items per request, 4 concurrent
//    clients, against a baseline measured in the same run: the same kind of rows through a plain
//    multi-row `INSERT … VALUES (…), (…) ON CONFLICT DO NOTHING RETURNING id` (1,000 rows per
//    statement, 4 concurrent connections, no HTTP). Rounds alternate (baseline, api, baseline,
//    api) so table growth weighs on both alike.
// 2. Single ingestion: POST /api/v1/transactions, closed loop (64 clients) for throughput, then a
//    fixed 500 req/s for p50/p99; the same closed loop against a bare node http server doing one
//    single-row INSERT per request (the commit-bound floor the api's group commit must beat).
// 3. Matching drain: 100k enrollments (50k cardholders × 2 offers), the worker started on the
//    backlog left by 1 and 2; transactions matched per second until none is `received`.
//
// The machine's CPU use just before each phase is recorded: other work on a shared machine shows
// there and explains a figure it depresses.
const http = require('http');
const { fork } = require('child_process');
const { Pool } = require('pg');
const { Queue } = require('bullmq');
const {
  BENCH_DB,
  resetDatabase,
  pool,
  startApp,
  request,
  fixedRate,
  closedLoop,
  saveResults,
  createInstitution,
  round,
  sleep,
} = require('./lib');

const PORT = Number(process.env.BENCH_INGEST_PORT ?? 3941);
const BARE_PORT = PORT + 1;
const PREFIX = `bench-ingest-${process.pid}`;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MERCHANTS = 1_000;
const CARDHOLDERS = 100_000;
const ENROLLED = 50_000; // × 2 offers each = 100k enrollments
const BATCH = 1_000;
const BATCH_CLIENTS = 4;
const BATCHES_PER_ROUND = Number(process.env.BENCH_INGEST_BATCHES ?? 24); // per side and round
const SINGLE_CLIENTS = 64;
const SINGLE_COUNT = Number(process.env.BENCH_INGEST_SINGLES ?? 20_000);
const SINGLE_RATE = 500;
const SINGLE_SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 20);
/** BENCH_INGEST_PHASES=batch,single,matching (default all) to iterate on one part. */
const PHASES = new Set((process.env.BENCH_INGEST_PHASES ?? 'batch,single,matching').split(','));

const COLUMNS = [
  'institution_id',
  'transaction_ref',
  'cardholder_token',
  'instrument_token',
  'instrument_type',
  'merchant_identifier',
  'merchant_identifier_type',
  'merchant_id',
  'mcc',
  'merchant_descriptor',
  'network',
  'amount',
  'currency',
  'transacted_at',
  'kind',
  'original_transaction_ref',
  'source',
];

let seq = 0;
/** A purchase: half the cardholders are enrolled; an enrolled one shops at an enrolled merchant half the time. */
function purchase(prefix) {
  const n = ++seq;
  const ch = Math.floor(Math.random() * CARDHOLDERS);
  let merchant = Math.floor(Math.random() * MERCHANTS);
  if (ch < ENROLLED && Math.random() < 0.5)
    merchant = Math.random() < 0.5 ? ch % MERCHANTS : (ch * 7 + 3) % MERCHANTS;
  return {
    cardholder_token: `ch_${ch}`,
    card_token: `ctk_${ch}`,
    merchant_identifier: `CA${String(merchant).padStart(13, '0')}`,
    merchant_identifier_type: 'card_acceptor',
    mcc: '5411',
    network: 'visa',
    amount: Number((10 + (n % 9000) / 100).toFixed(2)),
    transaction_ref: `${prefix}-${n}`,
    transacted_at: new Date(Date.now() - 60_000).toISOString(),
  };
}

function rowValues(institutionId, e) {
  return [
    institutionId,
    e.transaction_ref,
    e.cardholder_token,
    e.card_token,
    'card',
    e.merchant_identifier,
    'card_acceptor',
    null,
    e.mcc,
    null,
    e.network,
    String(e.amount),
    null,
    e.transacted_at,
    'purchase',
    null,
    'batch',
  ];
}

/** The baseline statement: a plain multi-row INSERT of one batch (17 × 1,000 bind parameters). */
function multiRowInsert(institutionId, events) {
  const params = [];
  const tuples = events.map((e) => {
    const vals = rowValues(institutionId, e);
    const base = params.length;
    params.push(...vals);
    return `(${vals.map((_, i) => `$${base + i + 1}`).join(',')})`;
  });
  return {
    text: `INSERT INTO transaction (${COLUMNS.join(',')}) VALUES ${tuples.join(',')} ON CONFLICT DO NOTHING RETURNING id`,
    values: params,
  };
}

async function run() {
  await resetDatabase();
  const api = await startApp('api', { port: PORT, env: { QUEUE_PREFIX: PREFIX } });
  const db = pool(BATCH_CLIENTS + 2);
  let worker;
  let bare;
  try {
    const { institution, auth } = await createInstitution(PORT, {
      name: 'Bench Bank',
      plan: 'enterprise',
    });
    const seeded = await seed(db, institution.id);
    console.log(`seeded: ${JSON.stringify(seeded)}`);
    const headers = { ...auth };

    // Warm-up (JIT, pools, prepared paths): not measured.
    await closedLoop({ concurrency: 4, count: 8, fn: () => postBatch(headers, 'warm') });
    await closedLoop({ concurrency: 16, count: 2_000, fn: () => postSingle(headers, 'warm') });

    // 1. Batch ingestion vs baseline, alternating rounds.
    const baselineRounds = [];
    const apiRounds = [];
    for (let round_ = 0; round_ < (PHASES.has('batch') ? 2 : 0); round_++) {
      const idle = await backgroundCpu();
      baselineRounds.push({
        ...(await closedLoop({
          concurrency: BATCH_CLIENTS,
          count: BATCHES_PER_ROUND,
          fn: () => baselineBatch(db, institution.id),
        })),
        background_cpu_pct: idle,
      });
      const idle2 = await backgroundCpu();
      const cpu = cpuMeter(api.child.pid);
      apiRounds.push({
        ...(await closedLoop({
          concurrency: BATCH_CLIENTS,
          count: BATCHES_PER_ROUND,
          fn: () => postBatch(headers, `b${round_}`),
        })),
        ...cpu(),
        background_cpu_pct: idle2,
      });
    }
    const rate = (rounds) =>
      !rounds.length
        ? null
        : round(
            (rounds.reduce((a, r) => a + r.count, 0) * BATCH) /
              rounds.reduce((a, r) => a + r.seconds, 0),
          );
    const batch = !apiRounds.length
      ? null
      : {
          batches_per_side: BATCHES_PER_ROUND * 2,
          api_tx_per_s: rate(apiRounds),
          baseline_tx_per_s: rate(baselineRounds),
          api_batch_p50_ms: apiRounds[1].p50,
          api_batch_p99_ms: apiRounds[1].p99,
          errors: apiRounds.reduce((a, r) => a + r.errors, 0),
          api_cpu_pct: apiRounds[1].api_cpu_pct,
          machine_cpu_pct: apiRounds[1].machine_cpu_pct,
          machine_cpu_before_pct: Math.max(
            ...apiRounds.map((r) => r.background_cpu_pct),
            ...baselineRounds.map((r) => r.background_cpu_pct),
          ),
        };
    if (batch) batch.ratio_to_baseline = round(batch.api_tx_per_s / batch.baseline_tx_per_s);
    console.log(`batch: ${JSON.stringify(batch)}`);
    // Baseline rows are not part of the matching backlog.
    await db.query(
      `UPDATE transaction SET status = 'unmatched', processed_at = now() WHERE source = 'batch' AND transaction_ref LIKE 'base-%'`,
    );

    let idle;
    let cpu;
    let meLoop = {};
    let singleLoop = {};
    let singleFixed = {};
    let bareLoop = {};
    if (PHASES.has('single')) {
      // 2. Single ingestion. Floor first: the same clients against GET /api/v1/me (auth, rate
      // limit, framework; no transaction work).
      idle = await backgroundCpu();
      cpu = cpuMeter(api.child.pid);
      meLoop = {
        ...(await closedLoop({
          concurrency: SINGLE_CLIENTS,
          count: SINGLE_COUNT / 2,
          fn: () =>
            request(PORT, 'GET', '/api/v1/me', { headers }).then((r) => ({
              ok: r.status === 200,
              ms: r.ms,
            })),
        })),
        ...cpu(),
        background_cpu_pct: idle,
      };
      console.log(`me closed loop: ${JSON.stringify(meLoop)}`);
      idle = await backgroundCpu();
      cpu = cpuMeter(api.child.pid);
      singleLoop = {
        ...(await closedLoop({
          concurrency: SINGLE_CLIENTS,
          count: SINGLE_COUNT,
          fn: () => postSingle(headers, 's'),
        })),
        ...cpu(),
        background_cpu_pct: idle,
      };
      console.log(`single closed loop: ${JSON.stringify(singleLoop)}`);
      idle = await backgroundCpu();
      cpu = cpuMeter(api.child.pid);
      singleFixed = {
        ...(await fixedRate({
          rate: SINGLE_RATE,
          seconds: SINGLE_SECONDS,
          fn: () => postSingle(headers, 'f'),
        })),
        ...cpu(),
        background_cpu_pct: idle,
      };
      console.log(`single at ${SINGLE_RATE}/s: ${JSON.stringify(singleFixed)}`);

      // Bare http server + one INSERT per request: the commit-bound floor.
      bare = fork(__filename, ['bare-server'], {
        env: { ...process.env, BARE_PORT: String(BARE_PORT), BENCH_DB },
        stdio: 'inherit',
      });
      await new Promise((resolve) => bare.once('message', resolve));
      await closedLoop({
        concurrency: 16,
        count: 1_000,
        fn: () => postBare(institution.id, 'bare-warm'),
      });
      idle = await backgroundCpu();
      bareLoop = {
        ...(await closedLoop({
          concurrency: SINGLE_CLIENTS,
          count: Math.min(SINGLE_COUNT, 10_000),
          fn: () => postBare(institution.id, 'bare'),
        })),
        background_cpu_pct: idle,
      };
      console.log(`bare single insert: ${JSON.stringify(bareLoop)}`);
      bare.kill('SIGTERM');
      bare = undefined;
      await db.query(
        `UPDATE transaction SET status = 'unmatched', processed_at = now() WHERE source = 'api' AND transaction_ref LIKE 'bare%'`,
      );
    }

    // 3. Matching drain: the worker starts on the backlog (api rows only).
    const [{ backlog }] = (
      await db.query(`SELECT count(*)::int AS backlog FROM transaction_backlog`)
    ).rows;
    const jobs = await queueCounts();
    idle = await backgroundCpu();
    const started = Date.now();
    worker = await startApp('worker', {
      env: { QUEUE_PREFIX: PREFIX, LOG_LEVEL: 'info', MATCH_RELAY_GRACE_MS: '600000' },
    });
    const ready = Date.now();
    if (process.env.BENCH_INGEST_WORKER_LOG)
      worker.child.stdout.pipe(
        require('fs').createWriteStream(process.env.BENCH_INGEST_WORKER_LOG),
      );
    const wcpu = cpuMeter(worker.child.pid);
    let left = backlog;
    while (left > 0 && Date.now() - ready < 600_000) {
      await sleep(200);
      left = (await db.query(`SELECT count(*)::int AS n FROM transaction_backlog`)).rows[0].n;
    }
    const drainSeconds = (Date.now() - ready) / 1000;
    const [outcome] = (
      await db.query(`SELECT count(*) FILTER (WHERE status = 'matched')::int AS matched, count(*) FILTER (WHERE status = 'unmatched')::int AS unmatched,
                             count(*) FILTER (WHERE status = 'merchant_unresolved')::int AS unresolved
                        FROM transaction WHERE transaction_ref NOT LIKE 'base-%' AND transaction_ref NOT LIKE 'bare%'`)
    ).rows;
    const [money] = (
      await db.query(
        `SELECT count(*)::int AS redemptions, (SELECT count(*) FROM settlement_entry)::int AS entries, (SELECT count(*) FROM webhook_delivery)::int AS deliveries FROM redemption`,
      )
    ).rows;
    const matching = {
      enrollments: seeded.enrollments,
      backlog_transactions: backlog,
      backlog_jobs: jobs,
      worker_start_seconds: round((ready - started) / 1000),
      drain_seconds: round(drainSeconds),
      tx_per_s: round(backlog / drainSeconds),
      left_received: left,
      ...outcome,
      ...money,
      worker_concurrency: 8,
      worker_cpu_pct: wcpu().api_cpu_pct,
      machine_cpu_pct: wcpu().machine_cpu_pct,
      machine_cpu_before_pct: idle,
    };
    console.log(`matching: ${JSON.stringify(matching)}`);

    saveResults('ingest', {
      machine_note: 'PostgreSQL, Redis, api, worker and the load generator share the same cores',
      batch,
      single: {
        closed_loop: {
          clients: SINGLE_CLIENTS,
          req_per_s: singleLoop.perSecond,
          p50: singleLoop.p50,
          p99: singleLoop.p99,
          errors: singleLoop.errors,
          api_cpu_pct: singleLoop.api_cpu_pct,
          machine_cpu_before_pct: singleLoop.background_cpu_pct,
        },
        fixed_rate: {
          rate: SINGLE_RATE,
          seconds: SINGLE_SECONDS,
          achieved: singleFixed.achievedRps,
          p50: singleFixed.p50,
          p90: singleFixed.p90,
          p99: singleFixed.p99,
          max: singleFixed.max,
          errors: singleFixed.errors,
          api_cpu_pct: singleFixed.api_cpu_pct,
          machine_cpu_before_pct: singleFixed.background_cpu_pct,
        },
        bare_http_single_insert: {
          clients: SINGLE_CLIENTS,
          req_per_s: bareLoop.perSecond,
          p50: bareLoop.p50,
          p99: bareLoop.p99,
        },
        floor_get_me: {
          clients: SINGLE_CLIENTS,
          req_per_s: meLoop.perSecond,
          p50: meLoop.p50,
          p99: meLoop.p99,
          api_cpu_pct: meLoop.api_cpu_pct,
        },
      },
      matching,
      goals: {
        batch_tx_per_s: 15_000,
        batch_ratio: 0.4,
        batch_met: !!batch && batch.api_tx_per_s >= 15_000 && batch.ratio_to_baseline >= 0.4,
        single_req_per_s: 2_000,
        single_p99_ms_at_500: 50,
        single_met:
          !!singleLoop.perSecond &&
          singleLoop.perSecond >= 2_000 &&
          singleFixed.p99 !== null &&
          singleFixed.p99 <= 50,
        matching_tx_per_s: 5_000,
        matching_met: matching.tx_per_s >= 5_000 && left === 0,
      },
      api_peak_rss_mb: api.peakRssMb(),
      worker_peak_rss_mb: worker.peakRssMb(),
    });
  } finally {
    bare?.kill('SIGTERM');
    await worker?.stop();
    await api.stop();
    const q = new Queue('matching', { connection: { url: REDIS_URL }, prefix: PREFIX });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    await db.end();
  }
}

async function postBatch(headers, prefix) {
  const transactions = Array.from({ length: BATCH }, () => purchase(prefix));
  const r = await request(PORT, 'POST', '/api/v1/transactions/batch', {
    headers,
    body: { transactions },
  });
  const ok = r.status === 202 && JSON.parse(r.body).accepted === BATCH;
  if (!ok) console.error(`batch: ${r.status} ${r.body.slice(0, 300)}`);
  return { ok, ms: r.ms };
}

async function postSingle(headers, prefix) {
  const r = await request(PORT, 'POST', '/api/v1/transactions', {
    headers,
    body: purchase(prefix),
  });
  return { ok: r.status === 202, ms: r.ms };
}

function postBare(institutionId, prefix) {
  return request(BARE_PORT, 'POST', '/', {
    body: { institution_id: institutionId, ...purchase(prefix) },
  }).then((r) => ({ ok: r.status === 202, ms: r.ms }));
}

async function baselineBatch(db, institutionId) {
  const events = Array.from({ length: BATCH }, () => purchase('base'));
  const started = process.hrtime.bigint();
  const r = await db.query(multiRowInsert(institutionId, events));
  return { ok: r.rowCount === BATCH, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

async function queueCounts() {
  const q = new Queue('matching', { connection: { url: REDIS_URL }, prefix: PREFIX });
  try {
    const c = await q.getJobCounts('wait', 'prioritized', 'delayed', 'active');
    return Object.values(c).reduce((a, b) => a + b, 0);
  } finally {
    await q.close();
  }
}

/** Merchants with card-acceptor ids, one offer each, and 100k enrollments (set-based). */
async function seed(db, institutionId) {
  const started = Date.now();
  await db.query(
    `WITH m AS (INSERT INTO merchant (name, category) SELECT 'Merchant ' || g, 'groceries' FROM generate_series(0, $1 - 1) g RETURNING id, name)
     INSERT INTO merchant_identifier (merchant_id, type, value)
     SELECT id, 'card_acceptor', 'CA' || lpad(substr(name, 10), 13, '0') FROM m`,
    [MERCHANTS],
  );
  // One offer per merchant: min spend 20, $5 back (every 10th: 5 % up to $8), a fee on some,
  // budgets on every 4th (some tight), up to 3 redemptions per cardholder.
  await db.query(
    `INSERT INTO offer (merchant_id, status, translations, min_spend, reward_type, cashback_amount, cashback_percent,
                        merchant_fee_amount, currency, starts_at, expires_at, budget_total, max_redemptions_per_cardholder)
     SELECT m.id, 'active', '{"en": {"title": "Bench offer", "description": "Spend 20, get 5"}}', 2000,
            CASE WHEN g % 10 = 0 THEN 'percent' ELSE 'fixed' END, CASE WHEN g % 10 = 0 THEN 800 ELSE 500 END,
            CASE WHEN g % 10 = 0 THEN 5 END, (g % 3) * 50, 'USD', now() - interval '30 days', now() + interval '30 days',
            CASE WHEN g % 4 = 0 THEN (CASE WHEN g % 8 = 0 THEN 20000 ELSE 100000000 END) END, 3
       FROM (SELECT id, substr(name, 10)::int AS g FROM merchant) m`,
  );
  const [{ enrollments }] = (
    await db.query(
      `WITH o AS (SELECT o.id, substr(m.name, 10)::int AS g FROM offer o JOIN merchant m ON m.id = o.merchant_id),
            e AS (INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, card_token, added_at)
                  SELECT $1, o.id, 'ch_' || c, 'ctk_' || c, now() - interval '10 days'
                    FROM generate_series(0, $2 - 1) c
                    JOIN o ON o.g = c % $3 OR o.g = (c * 7 + 3) % $3
                  ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*)::int AS enrollments FROM e`,
      [institutionId, ENROLLED, MERCHANTS],
    )
  ).rows;
  await db.query('ANALYZE');
  return {
    merchants: MERCHANTS,
    offers: MERCHANTS,
    enrollments,
    seconds: round((Date.now() - started) / 1000),
  };
}

/** CPU use of the whole machine over 2 s with no load from us. */
async function backgroundCpu() {
  const m = cpuMeter(process.pid);
  await sleep(2_000);
  return m().machine_cpu_pct;
}

function cpuMeter(pid) {
  const { readFileSync } = require('fs');
  const proc = () => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]);
  };
  const machine = () => {
    const f = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) };
  };
  const p0 = proc();
  const m0 = machine();
  const t0 = Date.now();
  return () => {
    const seconds = (Date.now() - t0) / 1000;
    const m1 = machine();
    return {
      api_cpu_pct: round(((proc() - p0) / 100 / seconds) * 100),
      machine_cpu_pct: round((1 - (m1.idle - m0.idle) / (m1.total - m0.total)) * 100),
    };
  };
}

/** The bare server: node http, JSON parse, one single-row INSERT per request, 202. */
function bareServer() {
  const db = new Pool({ connectionString: process.env.BENCH_DB, max: 16 });
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      try {
        const e = JSON.parse(Buffer.concat(chunks).toString());
        const r = await db.query(
          `INSERT INTO transaction (${COLUMNS.join(',')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(',')})
           ON CONFLICT DO NOTHING RETURNING id`,
          rowValues(e.institution_id, e).map((v, i) => (i === 16 ? 'api' : v)),
        );
        res
          .writeHead(202, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: r.rows[0]?.id, status: 'accepted' }));
      } catch (err) {
        res.writeHead(500).end(String(err.message));
      }
    });
  });
  server.listen(Number(process.env.BARE_PORT), '127.0.0.1', () => process.send?.('ready'));
  process.once('SIGTERM', () => server.close(() => db.end().then(() => process.exit(0))));
}

if (require.main === module && process.argv[2] === 'bare-server') bareServer();

module.exports = { run };
