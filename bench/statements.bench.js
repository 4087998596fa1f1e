// `npm run bench -- statements`: statements (docs/statements.md) of an institution whose last
// calendar month holds 1,000,000 movements (bench/generate.js), on the built api in production
// mode. Figures: the close of that month (every day and the month, each with its checksum), the
// first page of the statement list (goal ≤ 50 ms), the month's lines file streamed as CSV (goal
// ≥ 100,000 lines/s) with the api's resident memory before and after (goal: flat), and a JSON
// lines page deep in the month.
const http = require('http');
const {
  resetDatabase,
  pool,
  startApp,
  request,
  saveResults,
  createInstitution,
  summarize,
  round,
  OPERATOR_TOKEN,
} = require('./lib');
const { generate } = require('./generate');

const PORT = Number(process.env.BENCH_STATEMENTS_PORT ?? 3981);
const MOVEMENTS = Number(process.env.BENCH_STATEMENTS_MOVEMENTS ?? 1_000_000);
const READS = 50;
const OP = { authorization: `Bearer ${OPERATOR_TOKEN}` };

/** Current resident set size of a process, in MiB. */
function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(require('fs').readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : null;
}

/** Streams a GET to the end, counting bytes and line ends, sampling the api's RSS meanwhile. */
function stream(path, headers, apiPid) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let bytes = 0;
    let lines = 0;
    let firstByteMs = null;
    let peakRss = rssMb(apiPid);
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(apiPid))), 100);
    const req = http.get({ host: '127.0.0.1', port: PORT, path, headers }, (res) => {
      if (res.statusCode !== 200) {
        clearInterval(sampler);
        reject(new Error(`${path}: ${res.statusCode}`));
        return res.resume();
      }
      res.on('data', (chunk) => {
        if (firstByteMs === null) firstByteMs = Number(process.hrtime.bigint() - started) / 1e6;
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => {
        clearInterval(sampler);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        resolve({ ms, bytes, lines, firstByteMs, peakRss });
      });
    });
    req.on('error', (e) => (clearInterval(sampler), reject(e)));
  });
}

async function timed(n, fn) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return summarize(ms);
}

async function run() {
  await resetDatabase();
  const api = await startApp('api', { port: PORT });
  const db = pool(2);
  try {
    const { institution, auth } = await createInstitution(PORT, {
      name: 'Statements Bank',
      plan: 'enterprise',
    });
    const merchant = JSON.parse(
      (
        await request(PORT, 'POST', '/admin/api/v1/merchants', {
          headers: OP,
          body: {
            name: 'Statement Merchant',
            category: 'groceries',
            identifiers: [{ type: 'card_acceptor', value: 'STMT1' }],
          },
        })
      ).body,
    ).id;
    const offer = JSON.parse(
      (
        await request(PORT, 'POST', '/admin/api/v1/offers', {
          headers: OP,
          body: {
            merchant_id: merchant,
            institution_ids: [institution.id],
            status: 'active',
            translations: { en: { title: 'Statement bench offer' } },
            min_spend: 10,
            cashback_amount: 5,
            currency: 'USD',
            starts_at: new Date(Date.now() - 90 * 86_400_000).toISOString(),
            expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
          },
        })
      ).body,
    );
    if (!offer.id) throw new Error(`offer: ${JSON.stringify(offer)}`);

    const started = Date.now();
    await generate(
      db,
      {
        institutionIds: [institution.id],
        merchantIds: [merchant],
        offerIds: [offer.id],
        months: 1,
        cardholders: 1,
        transactionsPerMonth: 0,
        refundShare: 0,
        movementsPerMonth: MOVEMENTS,
      },
      (line) => console.log(line),
    );
    const generateSeconds = (Date.now() - started) / 1000;
    const { rows: size } = await db.query(
      `SELECT pg_total_relation_size('statement_movement')::float8 AS bytes,
              (SELECT count(*) FROM statement_movement)::int AS n`,
    );

    // Close through yesterday (UTC, the book's zone): every day of last month and the month.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const t0 = Date.now();
    const close = await request(PORT, 'POST', '/admin/api/v1/statements/close', {
      headers: OP,
      body: { through: yesterday, institution_id: institution.id },
    });
    const closeSeconds = (Date.now() - t0) / 1000;
    if (close.status !== 200) throw new Error(`close: ${close.status} ${close.body}`);
    console.log(`closed: ${close.body} in ${closeSeconds} s`);

    const list = (granularity) =>
      request(PORT, 'GET', `/api/v1/statements?granularity=${granularity}`, { headers: auth });
    const months = JSON.parse((await list('month')).body).data;
    const month = months.find((s) => s.status === 'closed');
    if (!month) throw new Error(`no closed month: ${JSON.stringify(months)}`);
    await timed(5, () => list('day')); // warm-up
    const firstPageMonth = await timed(READS, () => list('month'));
    const firstPageDay = await timed(READS, () => list('day'));
    const detail = await timed(READS, () =>
      request(PORT, 'GET', `/api/v1/statements/${month.id}`, { headers: auth }),
    );
    const deepPage = await timed(READS, () =>
      request(PORT, 'GET', `/api/v1/statements/${month.id}/lines?limit=100`, { headers: auth }),
    );

    const rssBefore = rssMb(api.child.pid);
    const file = await stream(
      `/api/v1/statements/${month.id}/lines`,
      { ...auth, accept: 'text/csv' },
      api.child.pid,
    );
    const linesPerSecond = round((file.lines - 1) / (file.ms / 1000));
    const figures = {
      conditions:
        'api in production mode (NODE_ENV=production, LOG_LEVEL info), no worker (the bench closes through the admin API); PostgreSQL and the client on the same cores',
      data: {
        movements: size[0].n,
        generate_seconds: round(generateSeconds),
        movement_table_bytes: size[0].bytes,
        movement_bytes_per_row: round(size[0].bytes / size[0].n),
      },
      close: { statements: JSON.parse(close.body).closed, seconds: round(closeSeconds) },
      first_page_month_ms: firstPageMonth,
      first_page_day_ms: firstPageDay,
      statement_detail_ms: detail,
      lines_json_page_ms: deepPage,
      file: {
        lines: file.lines - 1,
        bytes: file.bytes,
        seconds: round(file.ms / 1000),
        first_byte_ms: round(file.firstByteMs),
        lines_per_second: linesPerSecond,
        api_rss_mb_before: rssBefore,
        api_rss_mb_peak_while_streaming: file.peakRss,
      },
      goals: {
        first_page_p50_ms: 50,
        first_page_met: firstPageMonth.p50 <= 50 && firstPageDay.p50 <= 50,
        lines_per_second: 100_000,
        lines_met: linesPerSecond >= 100_000,
      },
    };
    saveResults('statements', figures);
  } finally {
    await db.end();
    await api.stop();
  }
}

module.exports = { run };
