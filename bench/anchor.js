// The framework-free anchor the bench compares the api with: plain node:http and pg, no Nest,
// no Express, no auth, no logging. It does the minimum a correct endpoint must do:
//   POST /tx      parse the JSON body, check the required fields, insert the same row as the api
//                 (into anchor_transaction, a copy of transaction with the same indexes), 202.
//   GET  /offers  the feed: the same per-cardholder statement as the api, the same catalogue
//                 (loaded once, as the api caches it), the cardholder's enrolled offers removed,
//                 priority order, the first 20 as JSON.
// Started by production.bench.js as a child process: ANCHOR_PORT, BENCH_DB, ANCHOR_INSTITUTION.
const http = require('http');
const { Pool } = require('pg');

const COLUMNS = [
  'institution_id',
  'transaction_ref',
  'cardholder_token',
  'instrument_token',
  'instrument_type',
  'merchant_identifier',
  'merchant_identifier_type',
  'mcc',
  'network',
  'amount',
  'transacted_at',
  'kind',
  'source',
];
const INSERT = `INSERT INTO anchor_transaction (${COLUMNS.join(',')})
  VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(',')})
  ON CONFLICT DO NOTHING RETURNING id`;
const REQUIRED = ['cardholder_token', 'merchant_identifier', 'amount', 'transaction_ref'];

// The api's per-cardholder feed statements, the very text it runs.
const {
  CARDHOLDER_SQL,
  PERSONALIZED_CARDHOLDER_SQL,
} = require('../apps/api/src/offers/offer-statements');
const CATALOGUE_SQL = `
  SELECT o.id, o.merchant_id, m.name AS merchant_name, m.category, o.translations, o.min_spend, o.reward_type,
         o.cashback_amount, o.cashback_percent, o.currency, o.starts_at, o.expires_at, o.priority
    FROM offer o JOIN merchant m ON m.id = o.merchant_id
   WHERE o.status = 'active' AND o.expires_at > now()
     AND (NOT o.targeted OR EXISTS (SELECT 1 FROM offer_target t WHERE t.offer_id = o.id AND t.institution_id = $1))
   ORDER BY o.priority DESC, o.id`;

async function main() {
  const institutionId = process.env.ANCHOR_INSTITUTION;
  // The api's pool settings (size, JIT off), so the statements run alike.
  const db = new Pool({ connectionString: process.env.BENCH_DB, max: 20, options: '-c jit=off' });
  const catalogue = (await db.query(CATALOGUE_SQL, [institutionId])).rows;

  const answer = (res, status, body) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', async () => {
        let e;
        try {
          e = JSON.parse(Buffer.concat(chunks).toString());
        } catch {
          return answer(res, 400, { error: 'invalid_json' });
        }
        const missing = REQUIRED.filter((f) => e[f] === undefined || e[f] === null || e[f] === '');
        if (missing.length) return answer(res, 400, { error: 'validation_failed', missing });
        try {
          const r = await db.query(INSERT, [
            institutionId,
            e.transaction_ref,
            e.cardholder_token,
            e.card_token ?? null,
            'card',
            e.merchant_identifier,
            e.merchant_identifier_type ?? 'card_acceptor',
            e.mcc ?? null,
            e.network ?? null,
            String(e.amount),
            e.transacted_at ?? new Date().toISOString(),
            'purchase',
            'api',
          ]);
          answer(res, 202, { id: r.rows[0]?.id, status: 'accepted' });
        } catch (err) {
          answer(res, 500, { error: err.message });
        }
      });
      return;
    }
    const url = new URL(req.url, 'http://anchor');
    const token = url.searchParams.get('cardholder_token');
    if (!token) return answer(res, 400, { error: 'validation_failed' });
    const personalize = url.searchParams.get('personalize') === 'true';
    db.query(personalize ? PERSONALIZED_CARDHOLDER_SQL : CARDHOLDER_SQL, [
      institutionId,
      token,
    ]).then(
      ({ rows: [row] }) => {
        const enrolled = new Set(row.enrollments.map((x) => x[0]));
        const data = [];
        for (const o of catalogue) {
          if (enrolled.has(o.id)) continue;
          data.push({
            id: o.id,
            merchant: { id: o.merchant_id, name: o.merchant_name, category: o.category },
            title: o.translations.en.title,
            description: o.translations.en.description,
            min_spend: o.min_spend,
            reward_type: o.reward_type,
            cashback_amount: o.cashback_amount,
            currency: o.currency,
            expires_at: o.expires_at,
          });
          if (data.length === 20) break;
        }
        answer(res, 200, { data, total: catalogue.length - enrolled.size });
      },
      (err) => answer(res, 500, { error: err.message }),
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.ANCHOR_PORT), '127.0.0.1', () => process.send?.('ready'));
  process.once('SIGTERM', () => server.close(() => db.end().then(() => process.exit(0))));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
