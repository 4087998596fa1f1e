// `npm run bench -- feed`: the offer feed (GET /api/v1/offers) with and without personalize, at a
// fixed arrival rate, against 2,000 active offers over 500 merchants, 1M enrollments and 100k
// cardholders with purchase history; plus the add (POST /api/v1/offers/{id}/add), the query plans
// of every statement on those paths, CPU use and the api's peak RSS.
const { writeFileSync } = require('fs');
const { join } = require('path');
const {
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

const PORT = Number(process.env.BENCH_FEED_PORT ?? 3931);
const RATE = Number(process.env.BENCH_FEED_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_FEED_SECONDS ?? 30);
const MERCHANTS = 500;
const OFFERS = 2_000;
const CARDHOLDERS = 100_000;
const ENROLLMENTS_PER_CARDHOLDER = 10; // 1M enrollments
const PURCHASES_PER_CARDHOLDER = 20; // 2M transactions
const CATEGORIES = [
  'groceries',
  'fuel',
  'travel',
  'dining',
  'books',
  'electronics',
  'fashion',
  'pharmacy',
  'home',
  'entertainment',
];

async function run() {
  await resetDatabase();
  const api = await startApp('api', { port: PORT });
  const rssAtStartMb = rssMb(api.child.pid);
  const db = pool(4);
  try {
    const { institution, auth } = await createInstitution(PORT, {
      name: 'Bench Bank',
      plan: 'enterprise',
      program: {
        supported_locales: ['en', 'es', 'pt-BR'],
        sort_order: 'featured',
        widget_feed_limit: 20,
        max_active_offers: 10,
      },
    });
    const other = await createInstitution(PORT, { name: 'Other Bank', plan: 'growth' });
    const seeded = await seed(db, institution.id, other.institution.id);

    const token = () => `ch_${1 + Math.floor(Math.random() * CARDHOLDERS)}`;
    const locales = ['en', 'es', 'pt-BR'];
    const plainPath = (i) =>
      `/api/v1/offers?cardholder_token=${token()}&locale=${locales[i % 3]}${i % 10 === 0 ? '&segment=premium' : ''}`;
    const personalizedPath = (i) => {
      let p = `/api/v1/offers?cardholder_token=${token()}&locale=${locales[i % 3]}&personalize=true`;
      if (i % 10 < 3)
        p += `&prefer_categories=${CATEGORIES[i % CATEGORIES.length]}&prefer_merchants=${encodeURIComponent(`Merchant ${1 + (i % MERCHANTS)}`)}`;
      return p;
    };
    const get = (path) =>
      request(PORT, 'GET', path, { headers: auth }).then((r) => ({
        ok: r.status === 200,
        ms: r.ms,
      }));

    // Warm-up: JIT, connection pool, catalogue and popularity caches.
    await closedLoop({ concurrency: 8, count: 500, fn: (i) => get(plainPath(i)) });
    await closedLoop({ concurrency: 8, count: 500, fn: (i) => get(personalizedPath(i)) });
    const sample = JSON.parse(
      (await request(PORT, 'GET', personalizedPath(1), { headers: auth })).body,
    );

    const phase = async (name, fn) => {
      // The machine's CPU use without our load, just before: other work on a shared machine
      // shows here, and explains a tail it causes.
      const idle = cpuMeter(api.child.pid);
      await sleep(3_000);
      const background = idle().machine_cpu_pct;
      const cpu = cpuMeter(api.child.pid);
      const r = await fixedRate({ rate: RATE, seconds: SECONDS, fn });
      const used = { ...cpu(), background_cpu_pct: background };
      console.log(`${name}: ${JSON.stringify({ ...r, ...used })}`);
      return { ...r, ...used };
    };
    // Floor: the same auth, rate limit and framework path with no feed work (GET /api/v1/me).
    const baseline = await phase('baseline /api/v1/me', () => get('/api/v1/me'));
    const plain = await phase('plain feed', (i) => get(plainPath(i)));
    const personalized = await phase('personalized feed', (i) => get(personalizedPath(i)));

    // Adds: fresh cardholders, each enrolling into one random offer (closed loop, 16 clients).
    const offerIds = seeded.offerIds;
    const adds = await closedLoop({
      concurrency: 16,
      count: 3_000,
      fn: (i) =>
        request(PORT, 'POST', `/api/v1/offers/${offerIds[(i * 7) % offerIds.length]}/add`, {
          headers: auth,
          body: { cardholder_token: `new_${i}` },
        }).then((r) => ({
          ok: r.status === 201 || r.status === 409 || r.status === 403,
          ms: r.ms,
        })),
    });
    console.log(`adds: ${JSON.stringify(adds)}`);

    await sleep(500); // let the last engagement events flush
    const [{ events }] = (await db.query(`SELECT count(*)::int AS events FROM engagement_event`))
      .rows;
    const plans = await explainAll(db, institution.id);
    writeFileSync(join(__dirname, 'results', 'feed-plans.txt'), plans.text);

    saveResults('feed', {
      data: {
        offers_active: seeded.offers,
        merchants: MERCHANTS,
        enrollments: seeded.enrollments,
        cardholders_with_history: CARDHOLDERS,
        transactions: seeded.transactions,
        seed_seconds: seeded.seconds,
        sample_feed_total: sample.total,
      },
      rate_per_second: RATE,
      seconds_per_phase: SECONDS,
      baseline_me: pick(baseline),
      plain: pick(plain),
      personalized: pick(personalized),
      goals: {
        plain_p99_ms: 20,
        plain_met: plain.p99 !== null && plain.p99 <= 20,
        personalized_p99_ms: 30,
        personalized_met: personalized.p99 !== null && personalized.p99 <= 30,
      },
      add: {
        perSecond: adds.perSecond,
        p50: adds.p50,
        p99: adds.p99,
        errors: adds.errors,
        concurrency: 16,
      },
      engagement_events_written: events,
      query_execution_ms: plans.ms,
      api_rss_after_start_mb: rssAtStartMb,
      api_peak_rss_mb: api.peakRssMb(),
    });
  } finally {
    await db.end();
    await api.stop();
  }
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(require('fs').readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : null;
}

function pick(r) {
  return {
    req_per_s: r.achievedRps,
    p50: r.p50,
    p90: r.p90,
    p99: r.p99,
    max: r.max,
    errors: r.errors,
    api_cpu_pct: r.api_cpu_pct,
    machine_cpu_pct: r.machine_cpu_pct,
    machine_cpu_before_pct: r.background_cpu_pct,
  };
}

/** CPU used by a process and by the whole machine between now and the returned function's call. */
function cpuMeter(pid) {
  const { readFileSync } = require('fs');
  const proc = () => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]); // utime + stime, clock ticks
  };
  const machine = () => {
    const f = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const idle = f[3] + f[4];
    return { idle, total: f.reduce((a, b) => a + b, 0) };
  };
  const p0 = proc();
  const m0 = machine();
  const t0 = Date.now();
  return () => {
    const seconds = (Date.now() - t0) / 1000;
    const m1 = machine();
    return {
      api_cpu_pct: round(((proc() - p0) / 100 / seconds) * 100), // % of one core (100 ticks/s)
      machine_cpu_pct: round((1 - (m1.idle - m0.idle) / (m1.total - m0.total)) * 100), // % of all cores
    };
  };
}

/** Set-based seeding: a handful of INSERT … SELECT over generate_series, no HTTP loops. */
async function seed(db, institutionId, otherInstitutionId) {
  const started = Date.now();
  const q = (sql, params) => db.query(sql, params);
  await q(
    `INSERT INTO merchant (name, category)
     SELECT 'Merchant ' || g, ($1::text[])[1 + g % cardinality($1::text[])] FROM generate_series(1, $2::int) g`,
    [CATEGORIES, MERCHANTS],
  );
  const merchantIds = (await q(`SELECT id FROM merchant ORDER BY name`)).rows.map((r) => r.id);
  // 2,000 live offers, 4 per merchant: mixed rewards, windows, budgets, segments and priorities;
  // plus 200 targeted at another institution and 300 not live, which the catalogue must skip.
  const inserted = (
    await q(
      `INSERT INTO offer (merchant_id, status, translations, min_spend, reward_type, cashback_amount, cashback_percent,
                          merchant_fee_amount, currency, starts_at, expires_at, budget_total, segments, priority, targeted)
       SELECT ($1::uuid[])[1 + g % cardinality($1::uuid[])],
              CASE WHEN g > $2 + 200 AND g % 3 = 0 THEN 'paused' ELSE 'active' END,
              jsonb_build_object('en', jsonb_build_object('title', 'Get back at merchant ' || g, 'description', 'Spend and earn cashback. Offer ' || g),
                                 'es', jsonb_build_object('title', 'Reembolso en comercio ' || g, 'description', 'Compra y gana. Oferta ' || g),
                                 'pt-BR', jsonb_build_object('title', 'Dinheiro de volta na loja ' || g, 'description', 'Compre e ganhe. Oferta ' || g)),
              1000 + (g % 9) * 500,
              CASE WHEN g % 10 = 0 THEN 'percent' ELSE 'fixed' END,
              100 + (g * 37) % 1900,
              CASE WHEN g % 10 = 0 THEN 5 + g % 10 END,
              (g % 4) * 25,
              'USD',
              now() - ((g % 60) || ' days')::interval - (g || ' seconds')::interval,
              CASE WHEN g > $2 + 200 AND g % 3 = 1 THEN now() - interval '1 hour' ELSE now() + ((1 + g % 90) || ' days')::interval END,
              CASE WHEN g % 3 = 0 THEN 100000000 WHEN g > $2 + 200 AND g % 3 = 2 THEN 1000 END,
              CASE WHEN g > $2 + 200 AND g % 3 = 2 THEN 1000 ELSE 0 END,
              CASE WHEN g % 10 = 5 THEN ARRAY['premium'] ELSE '{}' END,
              g % 10,
              g % 2 = 0 OR g > $2
         FROM generate_series(1, $2 + 500) g
       RETURNING id, targeted, (regexp_match(translations->'en'->>'description', '(\\d+)$'))[1]::int AS g`,
      [merchantIds, OFFERS],
    )
  ).rows;
  // g 1–2,000: live offers the bench institution sees (even g targeted at it, odd g at everyone);
  // 2,001–2,200: targeted at another institution; 2,201–2,500: paused, expired or out of budget.
  const mine = inserted.filter((o) => o.g <= OFFERS).sort((a, b) => a.g - b.g);
  const theirs = inserted.filter((o) => o.g > OFFERS && o.g <= OFFERS + 200);
  const notLive = inserted.filter((o) => o.g > OFFERS + 200);
  await q(`INSERT INTO offer_target (offer_id, institution_id) SELECT unnest($1::uuid[]), $2`, [
    mine.filter((o) => o.targeted).map((o) => o.id),
    institutionId,
  ]);
  await q(`INSERT INTO offer_target (offer_id, institution_id) SELECT unnest($1::uuid[]), $2`, [
    theirs.map((o) => o.id),
    otherInstitutionId,
  ]);
  await q(`INSERT INTO offer_target (offer_id, institution_id) SELECT unnest($1::uuid[]), $2`, [
    notLive.map((o) => o.id),
    institutionId,
  ]);
  const offerIds = mine.map((o) => o.id);

  // 1M enrollments: 10 distinct offers per cardholder (199 is coprime with 2,000); one in five
  // cardholders has redeemed one of them to the limit.
  await q(
    `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, status, redemption_count, added_at)
     SELECT $1, ($2::uuid[])[1 + (c * 7 + k * 199) % $3], 'ch_' || c,
            CASE WHEN k = 1 AND c % 5 = 0 THEN 'redeemed' ELSE 'active' END,
            CASE WHEN k = 1 AND c % 5 = 0 THEN 1 ELSE 0 END,
            now() - ((c % 30) || ' days')::interval
       FROM generate_series(1, $4::int) c, generate_series(1, $5::int) k`,
    [institutionId, offerIds, OFFERS, CARDHOLDERS, ENROLLMENTS_PER_CARDHOLDER],
  );
  // 2M purchases: each cardholder shops at 5 favourite merchants, 4 times each.
  await q(
    `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, instrument_token, instrument_type,
                              merchant_identifier, merchant_identifier_type, merchant_id, amount, currency,
                              transacted_at, source, kind, status, processed_at)
     SELECT $1, 'b' || c || '-' || g, 'ch_' || c, 'card_' || c, 'card', 'CA' || g, 'card_acceptor',
            ($2::uuid[])[1 + (c * 13 + (g % 5) * 97) % cardinality($2::uuid[])],
            10 + (c + g) % 90, 'USD', now() - ((g * 3) || ' days')::interval, 'batch', 'purchase', 'unmatched', now()
       FROM generate_series(1, $3::int) c, generate_series(1, $4::int) g`,
    [institutionId, merchantIds, CARDHOLDERS, PURCHASES_PER_CARDHOLDER],
  );
  await q('VACUUM ANALYZE');
  // Write the seeded pages out now, so that the checkpoint's I/O does not land in a measured phase.
  await q('CHECKPOINT');
  const count = async (t) => Number((await q(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
  const seconds = round((Date.now() - started) / 1000);
  const result = {
    offers: Number(
      (
        await q(
          `SELECT count(*) AS n FROM offer o JOIN offer_budget b ON b.offer_id = o.id
            WHERE o.status = 'active' AND o.expires_at > now()
              AND (o.budget_total IS NULL OR o.budget_total - b.budget_used >= o.cashback_amount + o.merchant_fee_amount)
              AND (NOT o.targeted OR EXISTS (SELECT 1 FROM offer_target t WHERE t.offer_id = o.id AND t.institution_id = $1))`,
          [institutionId],
        )
      ).rows[0].n,
    ),
    enrollments: await count('cardholder_offer'),
    transactions: await count('transaction'),
    seconds,
    offerIds,
  };
  console.log(`seeded in ${seconds}s: ${JSON.stringify({ ...result, offerIds: undefined })}`);
  return result;
}

// The statements of the feed and add paths: the very text apps/api/src/offers runs.
const SQL = require('../apps/api/src/offers/offer-statements');
const STATEMENTS = {
  feed_cardholder_personalized: SQL.PERSONALIZED_CARDHOLDER_SQL,
  catalogue_load: SQL.CATALOGUE_SQL,
  popularity: SQL.POPULARITY_SQL,
  add_facts: SQL.ENROLLMENT_FACTS_SQL,
};

/** EXPLAIN (ANALYZE, BUFFERS) of each statement with bench values; returns the text and the execution times. */
async function explainAll(db, institutionId) {
  const offerId = (
    await db.query(
      `SELECT offer_id FROM cardholder_offer WHERE cardholder_token = 'ch_4242' LIMIT 1`,
    )
  ).rows[0].offer_id;
  const params = {
    feed_cardholder_personalized: [institutionId, 'ch_4242'],
    catalogue_load: [],
    popularity: [institutionId],
    add_facts: [institutionId, 'ch_4242', offerId],
  };
  const ms = {};
  let text = '';
  for (const [name, sql] of Object.entries(STATEMENTS)) {
    // Warm once, then explain: the steady state is what the api sees.
    await db.query(sql, params[name]);
    const rows = (await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params[name])).rows.map(
      (r) => r['QUERY PLAN'],
    );
    const m = /Execution Time: ([\d.]+) ms/.exec(rows.join('\n'));
    ms[name] = m ? Number(m[1]) : null;
    text += `=== ${name}\n${rows.join('\n')}\n\n`;
  }
  return { ms, text };
}

module.exports = { run };
