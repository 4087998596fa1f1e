// `npm run bench -- growth`: flat cost as data grows. The same figures at 1,000,000 and at
// 10,000,000 stored transactions (BENCH_GROWTH_SIZES to change), each size on a database of its
// own filled by bench/generate.js: four institutions, a constant volume a month, so the larger
// size is ten times the months of history (2 and 20), with 3 feed events per purchase for the
// months engagement retention keeps, a reward for 1 purchase in 10 and a delivered webhook with
// one attempt for each reward within webhook retention, and statement movements closed into
// statements. Measured as production runs: the built api and worker in production mode, with
// the production bench's own phase measurement (phaseRunner, seed, endToEnd). Goal: every figure
// at the largest size within 1.25× of the smallest's. Also the erasure of a cardholder (the
// worker's privacy job), timed five times at each size. Writes bench/results/latest.{json,md}
// (section `growth`) and bench/results/growth.md.
const os = require('os');
const { readdirSync, readFileSync, writeFileSync } = require('fs');
const { join } = require('path');
const {
  resetDatabase,
  pool,
  startApp,
  request,
  closedLoop,
  saveResults,
  createInstitution,
  dropQueuePrefix,
  benchEnv,
  round,
  tableBytes,
  sleep,
  OPERATOR_TOKEN,
} = require('./lib');
const {
  PORT,
  FEED_CARDHOLDERS,
  FEED_OFFERS,
  phaseRunner,
  waitForIdle,
  postBatch,
  purchase,
  seed,
  endToEnd,
} = require('./production.bench');
const { startReceiver, configureWebhook } = require('./webhook-receiver');
const { generate } = require('./generate');

const SIZES = (process.env.BENCH_GROWTH_SIZES ?? '1000000,10000000').split(',').map(Number);
/** Months of history at the smallest size; each larger size has proportionally more. */
const BASE_MONTHS = Number(process.env.BENCH_GROWTH_BASE_MONTHS ?? 2);
const INSTITUTIONS = 4;
const REFUND_SHARE = 0.02;
const REQUESTS = Number(process.env.BENCH_GROWTH_REQUESTS ?? 3_000);
const READS = 100;
const GOAL_RATIO = 1.25;
const OP = { authorization: `Bearer ${OPERATOR_TOKEN}` };
const DAY = 86_400_000;

const load = () => os.loadavg().map(round);
const ok = (status) => (r) => ({ ok: r.status === status, ms: r.ms });

/** One size: a fresh database, generated history, api and worker, every figure. */
async function measureSize(size, months) {
  const t0 = Date.now();
  await resetDatabase();
  let api = await startApp('api', { port: PORT });
  let worker = null;
  const receiver = await startReceiver();
  const db = pool(8);
  try {
    const banks = [];
    for (let i = 0; i < INSTITUTIONS; i++)
      banks.push(
        await createInstitution(PORT, {
          name: i ? `Growth Bank ${i + 1}` : 'Bench Bank',
          plan: 'enterprise',
        }),
      );
    const bank = banks[0];
    const inst = bank.institution.id;
    receiver.state.secret = await configureWebhook(inst, receiver.url, PORT);
    const seeded = await seed(db, inst, { history: false });

    // The purchases a month that make `size` stored transactions (refunds included).
    const perMonth = Math.round(size / (1 + REFUND_SHARE) / INSTITUTIONS / months);
    const generated = await generate(db, {
      institutionIds: banks.map((b) => b.institution.id),
      merchantIds: seeded.merchantIds,
      months,
      cardholders: FEED_CARDHOLDERS,
      cardholderPrefix: 'ch_',
      transactionsPerMonth: perMonth,
      refundShare: REFUND_SHARE,
      offerIds: seeded.feedOfferIds.slice(0, 20),
      movementsPerMonth: Math.round(perMonth / 10),
      databaseUrl: benchEnv().DATABASE_URL,
    });
    const generateSeconds = round((Date.now() - t0) / 1000);
    const lifecycle = await firstLifecycleRun(db);

    // Statements closed through yesterday (as the worker's timer would have, day by day).
    const closeStarted = Date.now();
    const yesterday = new Date(Date.now() - DAY).toISOString().slice(0, 10);
    for (const b of banks) {
      const r = await request(PORT, 'POST', '/admin/api/v1/statements/close', {
        headers: OP,
        body: { through: yesterday, institution_id: b.institution.id },
      });
      if (r.status !== 200) throw new Error(`close: ${r.status} ${r.body}`);
    }
    const closeSeconds = round((Date.now() - closeStarted) / 1000);
    await db.query('VACUUM ANALYZE');
    await db.query('CHECKPOINT');

    // A fresh api (its caches filled by this database, not by the seeding) and the worker.
    await api.stop();
    api = await startApp('api', { port: PORT });
    worker = await startApp('worker', { port: PORT + 2 });
    const { meter, phase } = phaseRunner({ db, api, worker });
    const auth = bank.auth;
    const withLoad = async (fn) => {
      const before = load();
      const r = await fn();
      return { ...r, loadavg_before: before, loadavg_after: load() };
    };
    const postApi = (prefix) => () =>
      request(PORT, 'POST', '/api/v1/transactions', {
        headers: auth,
        body: purchase(prefix),
      }).then(ok(202));
    const getFeed = (personalize) => (i) =>
      request(
        PORT,
        'GET',
        `/api/v1/offers?cardholder_token=ch_${1 + ((i * 7919) % FEED_CARDHOLDERS)}${personalize ? '&personalize=true' : ''}`,
        { headers: auth },
      ).then(ok(200));
    const reads = (path, headers = auth) =>
      withLoad(async () => {
        await closedLoop({
          concurrency: 1,
          count: 5,
          fn: () => request(PORT, 'GET', path, { headers }).then(ok(200)),
        });
        return closedLoop({
          concurrency: 1,
          count: READS,
          fn: () => request(PORT, 'GET', path, { headers }).then(ok(200)),
        });
      });

    // Warm-up (JIT, pools, catalogue caches): not measured.
    await closedLoop({ concurrency: 16, count: 1_000, fn: postApi('warm') });
    await closedLoop({ concurrency: 8, count: 500, fn: getFeed(false) });
    await closedLoop({ concurrency: 8, count: 500, fn: getFeed(true) });
    await closedLoop({ concurrency: 4, count: 4, fn: () => postBatch(auth, 'warm') });

    const r = {};
    r.single = await withLoad(() =>
      phase('single post, 16 connections', () =>
        closedLoop({ concurrency: 16, count: REQUESTS, fn: postApi('s') }),
      ),
    );
    // 100 batches (100,000 transactions): at 24 the phase lasted 1.5-1.9 s and one slow batch
    // moved it by a quarter.
    const batches = 100;
    r.batch = await withLoad(() =>
      phase(
        'batch of 1,000, 4 clients',
        () => closedLoop({ concurrency: 4, count: batches, fn: () => postBatch(auth, 'b') }),
        batches * 1_000,
      ),
    );
    r.batch.tx_per_s = round((batches * 1_000) / r.batch.seconds);
    await waitForIdle(db);
    // 100,000 transactions (100 chunks), as in the production bench: at 30,000 the phase lasted
    // 3.5-5 s, and two or three chunks waiting 2-2.5 s on another's locks moved it by a quarter.
    r.matching = await withLoad(() => endToEnd(db, auth, meter, 100_000));
    r.feed_plain = await withLoad(() =>
      phase('feed plain, 8 connections', () =>
        closedLoop({ concurrency: 8, count: REQUESTS, fn: getFeed(false) }),
      ),
    );
    r.feed_personalized = await withLoad(() =>
      phase('feed personalized, 8 connections', () =>
        closedLoop({ concurrency: 8, count: REQUESTS, fn: getFeed(true) }),
      ),
    );
    r.adds = await withLoad(() =>
      phase('enrollment adds, 16 connections', () =>
        closedLoop({
          concurrency: 16,
          count: REQUESTS,
          fn: (i) =>
            request(
              PORT,
              'POST',
              `/api/v1/offers/${seeded.feedOfferIds[(i * 7) % FEED_OFFERS]}/add`,
              { headers: auth, body: { cardholder_token: `new_${i}` } },
            ).then(ok(201)),
        }),
      ),
    );
    await waitForIdle(db);
    r.reporting_first_page = await reads('/api/v1/reporting/redemptions');
    r.funnel = await reads('/api/v1/reporting/funnel');
    r.statements_first_page = await reads('/api/v1/statements?granularity=day');
    r.erasure = await erasures(bank.institution.id, 5);

    const { rows: counts } = await db.query(
      `SELECT (SELECT count(*) FROM transaction)::float8 AS transactions,
              (SELECT count(*) FROM engagement_event)::float8 AS engagement_events,
              (SELECT count(*) FROM webhook_attempt)::float8 AS webhook_attempts,
              (SELECT count(*) FROM redemption)::float8 AS redemptions,
              (SELECT count(*) FROM statement_movement)::float8 AS statement_movements,
              pg_database_size(current_database())::float8 AS database_bytes`,
    );
    const c = counts[0];
    const tables = {};
    for (const t of [
      'transaction',
      'transaction_key',
      'engagement_event',
      'webhook_attempt',
      'webhook_delivery',
      'redemption',
      'statement_movement',
      'cardholder_offer',
    ])
      tables[t] = await tableBytes(db, t);
    const millions = c.transactions / 1e6;
    const { rows: settings } = await db.query(
      `SELECT name, current_setting(name) AS value FROM pg_settings
        WHERE name IN ('shared_buffers', 'effective_cache_size', 'work_mem', 'jit', 'autovacuum')
        ORDER BY name`,
    );
    return {
      size,
      months,
      postgres_settings: Object.fromEntries(settings.map((x) => [x.name, x.value])),
      stored: c,
      generated: { ...generated, seconds_total: generateSeconds },
      statements_close_seconds: closeSeconds,
      first_lifecycle_run: lifecycle,
      disk: {
        database_bytes: c.database_bytes,
        bytes_per_million_transactions: Math.round(c.database_bytes / millions),
        transaction_bytes_per_row: Math.round(tables.transaction / c.transactions),
        transaction_key_bytes_per_row: Math.round(tables.transaction_key / c.transactions),
        engagement_event_bytes_per_row: Math.round(tables.engagement_event / c.engagement_events),
        table_bytes: tables,
      },
      figures: r,
      rss_mb: { api: api.peakRssMb(), worker: worker.peakRssMb() },
      seconds: round((Date.now() - t0) / 1000),
    };
  } finally {
    receiver.server.close();
    await db.end();
    await worker?.stop();
    await api.stop();
    await dropQueuePrefix(benchEnv().QUEUE_PREFIX).catch(() => undefined);
  }
}

/**
 * The worker's first data-lifecycle run on the generated history, before anything is measured:
 * it drops what retention would have dropped in a service that ran through those months (feed
 * events past 13 months, webhook rows past 90 days), so the figures are of the steady state and
 * not of that one run's DDL. Its outcome is recorded with the size's results.
 */
async function firstLifecycleRun(db) {
  const since = new Date();
  const worker = await startApp('worker', { port: PORT + 2 });
  try {
    for (const end = Date.now() + 600_000; Date.now() < end; await sleep(500)) {
      const { rows } = await db.query(
        `SELECT dropped_partitions, error, extract(epoch FROM finished_at - started_at) AS seconds
           FROM data_lifecycle_run WHERE started_at >= $1 AND finished_at IS NOT NULL`,
        [since],
      );
      if (rows.length) {
        const r = rows[0];
        console.log(
          `growth: first data-lifecycle run: ${r.dropped_partitions.length} partition(s) dropped in ${round(Number(r.seconds))} s${r.error ? `, error: ${r.error}` : ''}`,
        );
        return {
          dropped: r.dropped_partitions.length,
          seconds: round(Number(r.seconds)),
          error: r.error,
        };
      }
    }
    throw new Error('no data-lifecycle run within 10 minutes of the worker starting');
  } finally {
    await worker.stop();
  }
}

/**
 * Erasures of `count` cardholders with history (purchases, an enrollment, feed events, rewards),
 * one after the other: the median of their times and of the job's own (requested_at to
 * completed_at). One sample was 0.25-0.45 s, of which the job's own was 0.01-0.03 s.
 */
async function erasures(institutionId, count) {
  const key = await request(PORT, 'POST', `/admin/api/v1/institutions/${institutionId}/api-keys`, {
    headers: OP,
    body: { name: 'growth erasure', scopes: ['privacy'] },
  });
  if (key.status !== 201) throw new Error(`privacy key: ${key.status} ${key.body}`);
  const auth = { authorization: `Bearer ${JSON.parse(key.body).key}` };
  const before = load();
  const runs = [];
  for (let i = 0; i < count; i++) runs.push(await erasure(auth, `ch_${FEED_CARDHOLDERS - 3 - i}`));
  const median = (f) => runs.map(f).sort((a, b) => a - b)[count >> 1];
  return {
    seconds: median((x) => x.seconds),
    worker_seconds: median((x) => x.worker_seconds),
    runs: runs.map((x) => x.seconds),
    erased: runs[0].erased,
    loadavg_before: before,
    loadavg_after: load(),
  };
}

/** One erasure, from the request until its status reads completed (polled every 20 ms). */
async function erasure(auth, token) {
  const started = Date.now();
  const asked = await request(PORT, 'POST', '/api/v1/cardholders/erasure', {
    headers: auth,
    body: { cardholder_token: token },
  });
  if (asked.status !== 202) throw new Error(`erasure: ${asked.status} ${asked.body}`);
  const { id } = JSON.parse(asked.body);
  for (;;) {
    const r = JSON.parse(
      (await request(PORT, 'GET', `/api/v1/cardholders/erasure/${id}`, { headers: auth })).body,
    );
    if (r.status === 'completed')
      return {
        seconds: round((Date.now() - started) / 1000),
        worker_seconds: round((new Date(r.completed_at) - new Date(r.requested_at)) / 1000),
        erased: r.erased,
      };
    if (Date.now() - started > 600_000)
      throw new Error(`erasure not completed: ${JSON.stringify(r)}`);
    await sleep(20);
  }
}

/**
 * The goal table: each figure at every size, the ratio of the largest to the smallest (> 1 is
 * worse: a latency or CPU that grew, a throughput that fell) and whether it is within 1.25×.
 */
function growthTable(results) {
  const rows = [
    ['single post: api CPU (µs)', (x) => x.figures.single.cpu_us_per_request.api, 'lower'],
    ['batch of 1,000, 4 clients (tx/s)', (x) => x.figures.batch.tx_per_s, 'higher'],
    [
      'matching, end to end (tx/s to last redemption)',
      (x) => x.figures.matching.tx_per_s,
      'higher',
    ],
    ['feed plain p99 (ms)', (x) => x.figures.feed_plain.p99, 'lower'],
    ['feed personalized p99 (ms)', (x) => x.figures.feed_personalized.p99, 'lower'],
    ['enrollment adds, 16 connections (adds/s)', (x) => x.figures.adds.perSecond, 'higher'],
    ['enrollment add p99 (ms)', (x) => x.figures.adds.p99, 'lower'],
    ['reporting first page p50 (ms)', (x) => x.figures.reporting_first_page.p50, 'lower'],
    ['funnel p50 (ms)', (x) => x.figures.funnel.p50, 'lower'],
    ['statements first page p50 (ms)', (x) => x.figures.statements_first_page.p50, 'lower'],
    ['erasure of one cardholder, median of 5 (s)', (x) => x.figures.erasure.seconds, 'lower'],
  ];
  const first = results[0];
  const last = results.at(-1);
  return rows.map(([figure, get, better]) => {
    const a = get(first);
    const b = get(last);
    const worse = better === 'lower' ? b / a : a / b;
    return {
      figure,
      values: results.map(get),
      ratio: round(worse),
      met: worse <= GOAL_RATIO,
    };
  });
}

/** Which phase a figure comes from, for its load averages. */
const LOAD_OF = [
  (x) => x.figures.single,
  (x) => x.figures.batch,
  (x) => x.figures.matching,
  (x) => x.figures.feed_plain,
  (x) => x.figures.feed_personalized,
  (x) => x.figures.adds,
  (x) => x.figures.adds,
  (x) => x.figures.reporting_first_page,
  (x) => x.figures.funnel,
  (x) => x.figures.statements_first_page,
  (x) => x.figures.erasure,
];

function markdown(results, table) {
  const n = (v) => (typeof v === 'number' ? v.toLocaleString('en') : v);
  const sizes = results.map((x) => `${n(x.size)} tx`);
  const md = [
    '# Growth: the same figures at each size',
    '',
    `Written by \`npm run bench -- growth\`, ${new Date().toISOString()}, ${os.cpus().length} cores shared with other work (load average: 1, 5 and 15 minutes, before → after each phase).`,
    'Each size is a database of its own filled by `bench/generate.js` (4 institutions, the same volume a month; the larger size has ten times the months), then measured with the built api and worker in production mode. Ratio: largest against smallest, > 1 is worse; goal ≤ 1.25.',
    ...results
      .filter((x) => x.postgres_settings)
      .map(
        (x) =>
          `PostgreSQL at ${n(x.size)} tx: ${Object.entries(x.postgres_settings)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}.`,
      ),
    '',
    `| figure | ${sizes.join(' | ')} | ratio | ≤ 1.25× | load ${sizes.join(' | load ')} |`,
    `|---|${sizes.map(() => '---|').join('')}---|---|${sizes.map(() => '---|').join('')}`,
  ];
  table.forEach((x, i) =>
    md.push(
      `| ${x.figure} | ${x.values.map(n).join(' | ')} | ${x.ratio} | ${x.met ? 'yes' : '**no**'} | ${results
        .map((r) => {
          const p = LOAD_OF[i](r);
          return `${p.loadavg_before.join(' ')} → ${p.loadavg_after.join(' ')}`;
        })
        .join(' | ')} |`,
    ),
  );
  md.push(
    '',
    '| data | ' + sizes.join(' | ') + ' |',
    '|---|' + sizes.map(() => '---|').join(''),
    `| months of history | ${results.map((x) => x.months).join(' | ')} |`,
    `| transactions generated | ${results.map((x) => n(x.generated.transactions)).join(' | ')} |`,
    `| transactions stored at the end (the bench's own posts added) | ${results.map((x) => n(x.stored.transactions)).join(' | ')} |`,
    `| engagement events | ${results.map((x) => n(x.stored.engagement_events)).join(' | ')} |`,
    `| webhook attempts | ${results.map((x) => n(x.stored.webhook_attempts)).join(' | ')} |`,
    `| redemptions | ${results.map((x) => n(x.stored.redemptions)).join(' | ')} |`,
    `| statement movements | ${results.map((x) => n(x.stored.statement_movements)).join(' | ')} |`,
    `| database size (GB) | ${results.map((x) => round(x.disk.database_bytes / 1e9)).join(' | ')} |`,
    `| **disk per million transactions (MB, whole database)** | ${results.map((x) => round(x.disk.bytes_per_million_transactions / 1e6)).join(' | ')} |`,
    ...(results.length > 1
      ? [
          `| disk per million transactions added between the sizes (MB) | ${results
            .slice(1)
            .map((x, i) =>
              round(
                (x.disk.database_bytes - results[i].disk.database_bytes) /
                  ((x.stored.transactions - results[i].stored.transactions) / 1e6) /
                  1e6,
              ),
            )
            .join(' | ')} |`,
        ]
      : []),
    `| transaction bytes per row (with indexes) | ${results.map((x) => x.disk.transaction_bytes_per_row).join(' | ')} |`,
    `| transaction key bytes per row (with indexes) | ${results.map((x) => x.disk.transaction_key_bytes_per_row).join(' | ')} |`,
    `| engagement event bytes per row (with indexes) | ${results.map((x) => x.disk.engagement_event_bytes_per_row).join(' | ')} |`,
    `| generation (s) | ${results.map((x) => x.generated.seconds_total).join(' | ')} |`,
    `| statements closed through yesterday (s) | ${results.map((x) => x.statements_close_seconds).join(' | ')} |`,
    `| size measured in (s) | ${results.map((x) => x.seconds).join(' | ')} |`,
    '',
  );
  return md.join('\n');
}

/** Writes the table of `results` (one per size, smallest first): growth.md, growth.json, latest. */
function report(results, seconds) {
  const table = growthTable(results);
  const md = markdown(results, table);
  writeFileSync(join(__dirname, 'results', 'growth.md'), md);
  console.log(md);
  const sizes = results.map((x) => x.size);
  saveResults('growth', {
    sizes: sizes.join(', '),
    seconds,
    goal: `every figure at ${sizes.at(-1).toLocaleString('en')} within ${GOAL_RATIO}× of ${sizes[0].toLocaleString('en')}`,
    met: table.every((x) => x.met),
    table_ratios: Object.fromEntries(table.map((x) => [x.figure, x.ratio])),
    details: 'bench/results/growth.md and growth.json',
  });
  writeFileSync(
    join(__dirname, 'results', 'growth.json'),
    `${JSON.stringify({ measured_at: new Date().toISOString(), results, table }, null, 2)}\n`,
  );
}

/**
 * Measures each size of BENCH_GROWTH_SIZES in turn (BENCH_GROWTH_BASE_MONTHS: months at the first
 * size) and writes each size's figures to bench/results/growth-<size>.json as it ends, so sizes
 * measured by separate runs (one size each, at the same time on a shared host, say) can be
 * tabled together: `node bench/growth.bench.js --combine` tables every growth-<size>.json there.
 */
async function run() {
  const started = Date.now();
  const results = [];
  for (const size of SIZES) {
    const months = Math.max(1, Math.round((BASE_MONTHS * size) / SIZES[0]));
    console.log(`\ngrowth: ${size.toLocaleString('en')} transactions over ${months} month(s)`);
    results.push(await measureSize(size, months));
    console.log(JSON.stringify(results.at(-1), null, 2));
    writeFileSync(
      join(__dirname, 'results', `growth-${size}.json`),
      `${JSON.stringify(results.at(-1), null, 2)}\n`,
    );
  }
  report(results, round((Date.now() - started) / 1000));
}

module.exports = { run };

if (require.main === module && process.argv.includes('--combine')) {
  const dir = join(__dirname, 'results');
  const results = readdirSync(dir)
    .filter((f) => /^growth-\d+\.json$/.test(f))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
    .sort((a, b) => a.size - b.size);
  if (results.length < 2) throw new Error(`--combine needs two sizes in ${dir}`);
  report(results, round(results.reduce((a, x) => a + x.seconds, 0)));
}
