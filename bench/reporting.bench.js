// `npm run bench -- reporting`: 1M redemptions (with their transactions, enrollments and
// settlement entries) across 10 institutions; p50/p99 of the first redemptions page against a page
// at depth 10,000 (limit 100), the same for settlements; and the funnel over 30 days with 5M
// engagement events, both spread over 10 institutions and all in one institution (worst case).
const {
  resetDatabase,
  pool,
  startApp,
  request,
  closedLoop,
  saveResults,
  createInstitution,
  round,
} = require('./lib');

const PORT = Number(process.env.BENCH_REPORTING_PORT ?? 3961);
const INSTITUTIONS = 10;
const REDEMPTIONS = Number(process.env.BENCH_REDEMPTIONS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const SAMPLES = 200;

async function run() {
  await resetDatabase();
  const api = await startApp('api', { port: PORT });
  const db = pool(4);
  try {
    const institutions = [];
    for (let i = 0; i < INSTITUTIONS; i++)
      institutions.push(
        await createInstitution(PORT, { name: `Bench Bank ${i}`, plan: 'enterprise' }),
      );
    const ids = institutions.map((x) => x.institution.id);
    const seedStarted = Date.now();
    await seed(db, ids);
    const seedSeconds = round((Date.now() - seedStarted) / 1000);
    console.log(`seeded ${REDEMPTIONS} redemptions and ${EVENTS} events x2 in ${seedSeconds}s`);

    const { auth } = institutions[0];
    const timed = (path) =>
      request(PORT, 'GET', path, { headers: auth }).then((r) => ({
        ok: r.status === 200,
        ms: r.ms,
      }));
    const deepCursor = async (list) => {
      let cursor = null;
      for (let page = 0; page < 100; page++) {
        const r = await request(
          PORT,
          'GET',
          `/api/v1/reporting/${list}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { headers: auth },
        );
        cursor = JSON.parse(r.body).pagination.next_cursor;
      }
      return cursor; // the cursor of row 10,000
    };
    const measure = async (path) => {
      await closedLoop({ concurrency: 1, count: 20, fn: () => timed(path) }); // warm
      return closedLoop({ concurrency: 1, count: SAMPLES, fn: () => timed(path) });
    };

    const results = {};
    for (const list of ['redemptions', 'settlements']) {
      const first = await measure(`/api/v1/reporting/${list}?limit=100`);
      const deep = await measure(
        `/api/v1/reporting/${list}?limit=100&cursor=${encodeURIComponent(await deepCursor(list))}`,
      );
      results[list] = {
        first_page_p50_ms: first.p50,
        first_page_p99_ms: first.p99,
        depth_10000_p50_ms: deep.p50,
        depth_10000_p99_ms: deep.p99,
        deep_over_first: round(deep.p50 / first.p50),
        goal_deep_le_1_2x_first: deep.p50 <= 1.2 * first.p50,
        errors: first.errors + deep.errors,
      };
    }

    // Funnel, default window (last 30 days): institution 0 holds EVENTS/10, institution 1 holds EVENTS.
    const spread = await measure('/api/v1/reporting/funnel');
    const heavyAuth = institutions[1].auth;
    const heavyPath = '/api/v1/reporting/funnel';
    await closedLoop({
      concurrency: 1,
      count: 5,
      fn: () => request(PORT, 'GET', heavyPath, { headers: heavyAuth }).then((r) => ({ ms: r.ms })),
    });
    const heavy = await closedLoop({
      concurrency: 1,
      count: 30,
      fn: () =>
        request(PORT, 'GET', heavyPath, { headers: heavyAuth }).then((r) => ({
          ok: r.status === 200,
          ms: r.ms,
        })),
    });
    const sample = JSON.parse((await request(PORT, 'GET', heavyPath, { headers: heavyAuth })).body);
    results.funnel = {
      events_per_institution_spread: EVENTS / INSTITUTIONS,
      spread_p50_ms: spread.p50,
      spread_p99_ms: spread.p99,
      events_one_institution: EVENTS,
      one_institution_p50_ms: heavy.p50,
      one_institution_p99_ms: heavy.p99,
      one_institution_sample: sample.data,
      goal_le_100ms_spread: spread.p50 <= 100,
      goal_le_100ms_one_institution: heavy.p50 <= 100,
    };
    results.dataset = {
      institutions: INSTITUTIONS,
      redemptions: REDEMPTIONS,
      events_total: EVENTS + (EVENTS / INSTITUTIONS) * (INSTITUTIONS - 1),
      seed_seconds: seedSeconds,
    };
    results.api_peak_rss_mb = api.peakRssMb();
    saveResults('reporting', results);
  } finally {
    await db.end();
    await api.stop();
  }
}

/**
 * Set-based seeding: offers, enrollments, transactions, redemptions and settlement entries for
 * REDEMPTIONS purchases spread over 60 days and the institutions; engagement events over the
 * last 30 days.
 */
async function seed(db, ids) {
  const perInst = REDEMPTIONS / ids.length;
  await db.query(
    `INSERT INTO merchant (id, name, category) VALUES ('00000000-0000-4000-8000-000000000001', 'Bench Merchant', 'groceries')`,
  );
  await db.query(
    `INSERT INTO offer (id, merchant_id, status, translations, min_spend, cashback_amount, merchant_fee_amount, currency, starts_at, expires_at, max_redemptions_per_cardholder)
     SELECT ('00000000-0000-4000-9000-' || lpad(n::text, 12, '0'))::uuid, '00000000-0000-4000-8000-000000000001', 'active',
            '{"en": {"title": "Bench offer", "description": "d"}}', 1000, 500, 100, 'USD', now() - interval '90 days', now() + interval '90 days', 1000000
       FROM generate_series(1, 10) n`,
  );
  await db.query(
    `INSERT INTO cardholder_offer (id, institution_id, offer_id, cardholder_token, added_at)
     SELECT gen_random_uuid(), i.id, ('00000000-0000-4000-9000-' || lpad((1 + c % 10)::text, 12, '0'))::uuid, 'chk_' || lpad(c::text, 8, '0'), now() - interval '90 days'
       FROM unnest($1::uuid[]) AS i(id), generate_series(1, 10000) c`,
    [ids],
  );
  for (let k = 0; k < ids.length; k++) {
    // One statement per institution keeps each transaction a reasonable size.
    await db.query(
      `WITH t AS (
         INSERT INTO transaction (id, institution_id, transaction_ref, cardholder_token, instrument_token, merchant_id, amount, currency,
                                  transacted_at, received_at, source, status, processed_at)
         SELECT gen_random_uuid(), $1, 'ref-' || n, 'chk_' || lpad((1 + n % 10000)::text, 8, '0'), 'ctk', '00000000-0000-4000-8000-000000000001',
                25, 'USD', now() - (n * interval '60 days' / $2), now() - (n * interval '60 days' / $2), 'batch', 'matched', now()
           FROM generate_series(1, $2) n
         RETURNING id, institution_id, cardholder_token, transacted_at
       ), r AS (
         INSERT INTO redemption (id, institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency, purchase_amount,
                                 cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount, status, created_at)
         SELECT gen_random_uuid(), t.institution_id, t.id, co.id, co.offer_id, t.cardholder_token, 'USD', 2500, 500, 600, 50, 550, 'pending', t.transacted_at
           FROM t JOIN cardholder_offer co ON co.institution_id = t.institution_id AND co.cardholder_token = t.cardholder_token
         RETURNING id, institution_id, offer_id, created_at
       )
       INSERT INTO settlement_entry (institution_id, redemption_id, offer_id, merchant_id, currency, merchant_funded_amount,
                                     service_revenue_amount, institution_payout_amount, status, created_at)
       SELECT r.institution_id, r.id, r.offer_id, '00000000-0000-4000-8000-000000000001', 'USD', 600, 50, 550, 'pending', r.created_at FROM r`,
      [ids[k], perInst],
    );
  }
  // Engagement: per feed call one widget view and 8 impressions; 1 add per 20 views.
  const insertEvents = async (institutionIds, total) => {
    const per = Math.floor(total / institutionIds.length);
    for (const id of institutionIds) {
      await db.query(
        `INSERT INTO engagement_event (institution_id, kind, cardholder_token, offer_id, occurred_at)
         SELECT $1, CASE WHEN n % 10 = 0 THEN 'widget_view' WHEN n % 200 = 1 THEN 'add_success' ELSE 'impression' END,
                'chk_' || lpad((1 + (n / 10) % 50000)::text, 8, '0'), NULL, now() - (n * interval '30 days' / $2)
           FROM generate_series(1, $2) n`,
        [id, per],
      );
    }
  };
  await insertEvents(
    ids.filter((_, i) => i !== 1),
    (EVENTS / ids.length) * (ids.length - 1),
  );
  await insertEvents([ids[1]], EVENTS);
  await db.query('VACUUM ANALYZE');
}

module.exports = { run };
