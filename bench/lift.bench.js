// `npm run bench -- lift`: the lift report (docs/lift.md) computed fresh for an offer with
// 1,000,000 eligible cardholders and 10,000,000 purchases in its window (goal ≤ 10 s), on the built
// api in production mode. Data from bench/generate.js: one institution, 3 months of history
// (the offer started 60 days ago: 2 months in the window, 1 before it), 5M purchases a month over
// 1M cardholders, 10 % of them at the offer's merchant, 2 % refunded.
const os = require('os');
const {
  resetDatabase,
  pool,
  startApp,
  request,
  saveResults,
  createInstitution,
  round,
} = require('./lib');
const { generate } = require('./generate');

const PORT = Number(process.env.BENCH_LIFT_PORT ?? 3971);
const CARDHOLDERS = Number(process.env.BENCH_LIFT_CARDHOLDERS ?? 1_000_000);
const PER_MONTH = Number(process.env.BENCH_LIFT_PER_MONTH ?? 5_000_000);
const DAY = 86_400_000;
const OP = { authorization: 'Bearer op_bench_operator_token_0123456789abcdef' };

async function run() {
  await resetDatabase();
  const api = await startApp('api', { port: PORT });
  const db = pool(2);
  try {
    const { institution, auth } = await createInstitution(PORT, {
      name: 'Lift Bank',
      plan: 'enterprise',
    });
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
    const now = Date.now();
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
    const seeded = Date.now();
    const plan = await generate(db, {
      institutionIds: [institution.id],
      merchantIds: merchants,
      hotMerchantId: merchants[0],
      hotShare: 0.1,
      months: 3,
      end: new Date(now),
      cardholders: CARDHOLDERS,
      transactionsPerMonth: PER_MONTH,
    });
    const seedSeconds = round((Date.now() - seeded) / 1000);
    const [{ in_window }] = (
      await db.query(
        `SELECT count(*)::int AS in_window FROM transaction
          WHERE institution_id = $1 AND kind = 'purchase' AND transacted_at >= $2`,
        [institution.id, new Date(now - 60 * DAY)],
      )
    ).rows;
    const [{ bytes }] = (
      await db.query(`SELECT pg_total_relation_size('transaction')::bigint AS bytes`)
    ).rows;

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
      seed_seconds: seedSeconds,
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
    await api.stop();
  }
}

module.exports = { run };
