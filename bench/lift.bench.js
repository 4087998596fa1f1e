// `npm run bench -- lift`: the lift report (docs/lift.md) computed fresh for an offer with
// 1,000,000 eligible cardholders and 10,000,000 purchases in its window (goal ≤ 10 s), on the built
// api in production mode. Data from bench/generate.js: one institution, 3 months of history
// (the offer started 60 days ago: 2 months in the window, 1 before it), 5M purchases a month over
// 1M cardholders, 10 % of them at the offer's merchant, 2 % refunded. BENCH_LIFT_REUSE=1 measures
// again on the population a previous run left in the bench database (the generation takes
// minutes; the report is computed fresh all the same: results are reused in the api's memory only).
const os = require('os');
const {
  ensureBuild,
  resetDatabase,
  pool,
  startApp,
  request,
  saveResults,
  createInstitution,
  round,
  tableBytes,
} = require('./lib');
const { generate } = require('./generate');

const PORT = Number(process.env.BENCH_LIFT_PORT ?? 3971);
const CARDHOLDERS = Number(process.env.BENCH_LIFT_CARDHOLDERS ?? 1_000_000);
const PER_MONTH = Number(process.env.BENCH_LIFT_PER_MONTH ?? 5_000_000);
const DAY = 86_400_000;
const OP = { authorization: 'Bearer op_bench_operator_token_0123456789abcdef' };

/** Merchants, the offer (10 % holdout) and the generated population. */
async function populate(institution, now, db) {
  const merchants = [];
  for (let i = 0; i < 50; i++) {
    const r = await request(PORT, 'POST', '/admin/api/v1/merchants', {
      headers: OP,
      body: {
        name: `Merchant ${i}`,
        category: 'groceries',
        identifiers: [{ type: 'card_acceptor', value: `LIFT${i}` }],
      },
    });
    merchants.push(JSON.parse(r.body).id);
  }
  const offer = JSON.parse(
    (
      await request(PORT, 'POST', '/admin/api/v1/offers', {
        headers: OP,
        body: {
          merchant_id: merchants[0],
          institution_ids: [institution.id],
          status: 'active',
          translations: { en: { title: 'Lift bench offer' } },
          min_spend: 10,
          cashback_amount: 5,
          currency: 'USD',
          starts_at: new Date(now - 60 * DAY).toISOString(),
          expires_at: new Date(now + 30 * DAY).toISOString(),
          holdout_percent: 10,
        },
      })
    ).body,
  );
  const plan = await generate(db, {
    institutionIds: [institution.id],
    merchantIds: merchants,
    hotMerchantId: merchants[0],
    hotShare: 0.1,
    months: 3,
    end: new Date(now),
    cardholders: CARDHOLDERS,
    transactionsPerMonth: PER_MONTH,
    eventsPerTransaction: 0, // the lift report reads no feed events; 45M of them would triple the load
  });
  return { offer, plan };
}

/** The population a previous run left: its institution, offer and row count; null when none. */
async function previousPopulation(db) {
  try {
    const { rows } = await db.query(
      `SELECT i.id AS institution_id, o.id AS offer_id,
              (SELECT count(*)::int FROM transaction t WHERE t.institution_id = i.id) AS transactions
         FROM institution i JOIN offer o ON true
        WHERE i.name = 'Lift Bank' AND o.translations -> 'en' ->> 'title' = 'Lift bench offer'
        LIMIT 1`,
    );
    return rows[0]?.transactions ? rows[0] : null;
  } catch {
    return null; // no bench database yet
  }
}

async function run() {
  let db = pool(2);
  const previous = process.env.BENCH_LIFT_REUSE === '1' ? await previousPopulation(db) : null;
  if (!previous) {
    await db.end();
    await resetDatabase();
    db = pool(2);
  } else ensureBuild(); // the reset builds; a reused population measures the current sources too
  const api = await startApp('api', { port: PORT });
  let worker = null;
  try {
    const now = Date.now();
    let institution, auth, offer, plan;
    const seeded = Date.now();
    if (previous) {
      console.log(
        `lift: reusing ${previous.transactions.toLocaleString('en')} stored transactions`,
      );
      institution = { id: previous.institution_id };
      offer = { id: previous.offer_id };
      plan = { transactions: previous.transactions };
      const key = await request(
        PORT,
        'POST',
        `/admin/api/v1/institutions/${institution.id}/api-keys`,
        {
          headers: OP,
          body: { name: 'lift bench again' },
        },
      );
      auth = { authorization: `Bearer ${JSON.parse(key.body).key}` };
    } else {
      ({ institution, auth } = await createInstitution(PORT, {
        name: 'Lift Bank',
        plan: 'enterprise',
      }));
      ({ offer, plan } = await populate(institution, now, db));
    }
    const seedSeconds = round((Date.now() - seeded) / 1000);
    // Measured as production runs: the worker beside the api (idle but for its schedules).
    worker = await startApp('worker', { port: PORT + 2 });
    const [{ in_window }] = (
      await db.query(
        `SELECT count(*)::int AS in_window FROM transaction
          WHERE institution_id = $1 AND kind = 'purchase' AND transacted_at >= $2`,
        [institution.id, new Date(now - 60 * DAY)],
      )
    ).rows;
    const bytes = await tableBytes(db, 'transaction');

    // Each call below is a fresh computation: the api reuses a result per (offer, institutions),
    // and the two paths ask for two different sets (the institution; every institution).
    const timed = async (path, headers) => {
      const load = os.loadavg()[0];
      const r = await request(PORT, 'GET', path, { headers });
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body}`);
      return { ms: round(r.ms), load_1m_before: round(load), body: JSON.parse(r.body) };
    };
    const first = await timed(`/api/v1/reporting/offers/${offer.id}/lift`, auth);
    const second = await timed(`/admin/api/v1/offers/${offer.id}/lift`, OP);
    const cached = await timed(`/api/v1/reporting/offers/${offer.id}/lift`, auth);
    const g = first.body.groups;
    saveResults('lift', {
      eligible_cardholders: g.exposed.cardholders + g.holdout.cardholders,
      purchases_in_window: in_window,
      transactions_stored: plan.transactions,
      transaction_table_bytes_per_row: Math.round(Number(bytes) / plan.transactions),
      seed_seconds: previous ? null : seedSeconds,
      population_reused: Boolean(previous),
      fresh_ms: first.ms,
      fresh_again_ms: second.ms,
      reused_ms: cached.ms,
      load_1m_before: first.load_1m_before,
      cpus: os.cpus().length,
      goal_fresh_le_10s: Math.max(first.ms, second.ms) <= 10_000,
      holdout_share: round(g.holdout.cardholders / (g.exposed.cardholders + g.holdout.cardholders)),
      lift: first.body.lift,
    });
  } finally {
    await db.end();
    await worker?.stop();
    await api.stop();
  }
}

module.exports = { run };
