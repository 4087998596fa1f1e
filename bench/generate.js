#!/usr/bin/env node
// The project's one data generator: fills a migrated database with months of card history for
// several institutions, fast, straight into PostgreSQL (never through the API). Benches call
// generate(); `node bench/generate.js --help` runs it by hand. Built to be extended: each kind of
// data is a step (STEPS below) that reads the same plan; a later step (engagement events, webhook
// attempts) adds itself there and to estimateBytes().
//
// Rows are made by INSERT … SELECT over generate_series inside PostgreSQL: nothing crosses the
// wire, which beats COPY from a client (no text to build, send and parse), and the secondary
// indexes of the tables filled are dropped first and built again at the end (one sort per index
// instead of one insertion per row), then the tables are analysed and vacuumed, as after a restore.
const { statfsSync } = require('fs');

/**
 * Bytes one stored transaction takes with its indexes: 560 measured on the lift bench's 1.53M-row
 * load (it prints the figure at its scale: transaction_table_bytes_per_row).
 */
const BYTES_PER_TRANSACTION = 560;
/** Bytes one statement movement takes with its indexes (the statements bench prints its own). */
const BYTES_PER_MOVEMENT = 450;
/** Free space kept beyond the estimate (index builds sort on disk, WAL grows meanwhile). */
const HEADROOM = 1.5;

/**
 * @typedef {object} Plan
 * @property {string[]} institutionIds  institutions to fill (they must exist)
 * @property {string[]} merchantIds     merchants purchases go to (they must exist)
 * @property {string} [hotMerchantId]   one merchant that takes `hotShare` of the purchases
 * @property {number} [hotShare]        0–1, default 0.1
 * @property {number} months            months of history, ending at `end`
 * @property {Date} [end]               default now
 * @property {number} cardholders       per institution
 * @property {number} transactionsPerMonth  purchases per institution and month
 * @property {number} [refundShare]     share of purchases refunded (in part), default 0.02
 * @property {string} [currency]        default USD
 * @property {number} [movementsPerMonth] statement movements per institution and calendar month
 *                                        (the months before `end`'s), default 0
 * @property {string[]} [offerIds]        offers the movements name (with merchantIds)
 */

/** What the plan will store. */
function estimate(plan) {
  const purchases = plan.institutionIds.length * plan.months * plan.transactionsPerMonth;
  const refunds = Math.round(purchases * (plan.refundShare ?? 0.02));
  const transactions = purchases + refunds;
  const movements = plan.institutionIds.length * plan.months * (plan.movementsPerMonth ?? 0);
  return {
    purchases,
    refunds,
    transactions,
    movements,
    bytes: transactions * BYTES_PER_TRANSACTION + movements * BYTES_PER_MOVEMENT,
  };
}

/** Free bytes where the database keeps its files (when the server is this machine), else null. */
async function freeBytes(client) {
  try {
    const { rows } = await client.query(`SELECT current_setting('data_directory') AS dir`);
    const s = statfsSync(rows[0].dir);
    return s.bavail * s.bsize;
  } catch {
    return null; // not a superuser, or the server is elsewhere: the caller is warned
  }
}

const gb = (b) => `${(b / 1e9).toFixed(1)} GB`;

/** Secondary indexes of a table (not those backing a constraint), to drop and build again. */
async function secondaryIndexes(client, table) {
  const { rows } = await client.query(
    `SELECT i.indexname AS name, i.indexdef AS def
       FROM pg_indexes i
      WHERE i.schemaname = 'public' AND i.tablename = $1
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    [table],
  );
  return rows;
}

const STEPS = [
  {
    name: 'purchases',
    table: 'transaction',
    /** Per institution and month: cardholders spread evenly, merchants by share, amounts 5–100. */
    async run(client, plan, log) {
      const end = plan.end ?? new Date();
      const month = 30 * 86_400_000;
      const others = plan.merchantIds.filter((m) => m !== plan.hotMerchantId);
      for (const [i, inst] of plan.institutionIds.entries()) {
        for (let m = plan.months - 1; m >= 0; m--) {
          const to = new Date(end.getTime() - m * month);
          const from = new Date(to.getTime() - month);
          const started = Date.now();
          // Cardholder g·7919 mod C runs through every cardholder (7919 is prime), so each one buys.
          await client.query(
            `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, merchant_id, amount,
                                      currency, transacted_at, source, kind, status, processed_at)
             SELECT $1, 'gen-' || $2 || '-' || g, 'ch-' || lpad(((g * 7919) % $3)::text, 8, '0'),
                    CASE WHEN $4::uuid IS NOT NULL AND random() < $5 THEN $4::uuid
                         ELSE ($6::uuid[])[1 + floor(random() * array_length($6::uuid[], 1))::int] END,
                    round((5 + random() * 95)::numeric, 2), $7, $8::timestamptz + random() * ($9::timestamptz - $8::timestamptz),
                    'batch', 'purchase', 'unmatched', now()
               FROM generate_series(1::bigint, $10::bigint) g`,
            [
              inst,
              `${i}-${m}`,
              plan.cardholders,
              plan.hotMerchantId ?? null,
              plan.hotShare ?? 0.1,
              others,
              plan.currency ?? 'USD',
              from,
              to,
              plan.transactionsPerMonth,
            ],
          );
          log(
            `  institution ${i + 1}/${plan.institutionIds.length}, month ${plan.months - m}/${plan.months}: ` +
              `${plan.transactionsPerMonth.toLocaleString('en')} purchases in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          );
        }
      }
    },
  },
  {
    name: 'refunds',
    table: 'transaction',
    /** A share of the purchases refunded in part (10–100 %), a few days later. */
    async run(client, plan) {
      await client.query(
        `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, merchant_id, amount, currency,
                                  transacted_at, source, kind, original_transaction_ref, status, processed_at)
         SELECT institution_id, 'r' || transaction_ref, cardholder_token, merchant_id,
                round(amount * (0.1 + 0.9 * random())::numeric, 2), currency,
                transacted_at + random() * interval '5 days', 'batch', 'refund', transaction_ref, 'unmatched', now()
           FROM transaction
          WHERE institution_id = ANY($1::uuid[]) AND kind = 'purchase' AND transaction_ref LIKE 'gen-%'
            AND random() < $2`,
        [plan.institutionIds, plan.refundShare ?? 0.02],
      );
    },
  },
  {
    name: 'statement movements',
    table: 'statement_movement',
    /**
     * Ledger lines straight into statement_movement (as the settlement_entry triggers book them):
     * per institution and calendar month (UTC) before `end`'s, earned 70 %, settled 15 %,
     * reversed 10 %, clawback 5 %; the institution's USD book opens on the first month's first
     * day, so closing through yesterday closes them all.
     */
    async run(client, plan, log) {
      if (!plan.movementsPerMonth) return;
      const end = plan.end ?? new Date();
      const monthStart = (back) =>
        new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - back, 1));
      for (const [i, inst] of plan.institutionIds.entries()) {
        await client.query(
          `INSERT INTO statement_book (institution_id, currency, open_day, time_zone, pending_opening, month_pending_opening)
           VALUES ($1, $2, $3::date, 'UTC', 0, 0) ON CONFLICT DO NOTHING`,
          [inst, plan.currency ?? 'USD', monthStart(plan.months).toISOString().slice(0, 10)],
        );
        for (let m = plan.months; m >= 1; m--) {
          const started = Date.now();
          await client.query(
            `INSERT INTO statement_movement (
               institution_id, currency, period_day, type, booked_at, amount, settlement_entry_id, redemption_id,
               offer_id, merchant_id, merchant_name, offer_title, transaction_ref, merchant_funded_amount,
               service_revenue_amount, institution_payout_amount, source)
             SELECT $1, $2, (x.at AT TIME ZONE 'UTC')::date, x.type, x.at, x.payout, gen_random_uuid(),
                    gen_random_uuid(), ($3::uuid[])[1 + g % array_length($3::uuid[], 1)],
                    ($4::uuid[])[1 + g % array_length($4::uuid[], 1)], 'Merchant ' || (g % 50), 'Offer ' || (g % 20),
                    'gen-m' || $5 || '-' || g, x.payout + x.payout / 4, x.payout / 4, x.payout, 'matching'
               FROM generate_series(1::bigint, $6::bigint) g,
                    LATERAL (SELECT $7::timestamptz + random() * ($8::timestamptz - $7::timestamptz) AS at,
                                    (100 + floor(random() * 4900))::bigint AS payout,
                                    CASE WHEN g % 20 < 14 THEN 'earned' WHEN g % 20 < 17 THEN 'settled'
                                         WHEN g % 20 < 19 THEN 'reversed' ELSE 'clawback' END AS type
                            OFFSET 0) x
              ORDER BY x.at -- booked in time order, as the triggers book them (the heap follows the lines' order)`,
            [
              inst,
              plan.currency ?? 'USD',
              plan.offerIds,
              plan.merchantIds,
              `${i}-${m}`,
              plan.movementsPerMonth,
              monthStart(m),
              new Date(monthStart(m - 1).getTime() - 1),
            ],
          );
          log(
            `  institution ${i + 1}/${plan.institutionIds.length}, month ${monthStart(m).toISOString().slice(0, 7)}: ` +
              `${plan.movementsPerMonth.toLocaleString('en')} movements in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          );
        }
      }
    },
  },
];

/**
 * Fills the database for `plan`. Prints what it will store and the disk it needs; refuses
 * (throws) when the database's disk has less free space than that with headroom.
 */
async function generate(pool, plan, log = console.log) {
  const e = estimate(plan);
  const client = await pool.connect();
  try {
    const free = await freeBytes(client);
    log(
      `generate: ${plan.institutionIds.length} institution(s) × ${plan.months} month(s): ` +
        `${e.purchases.toLocaleString('en')} purchases, ${e.refunds.toLocaleString('en')} refunds, ` +
        `${e.movements.toLocaleString('en')} statement movements; ` +
        `disk needed ≈ ${gb(e.bytes)} (free: ${free === null ? 'unknown' : gb(free)})`,
    );
    if (free !== null && free < e.bytes * HEADROOM)
      throw new Error(
        `not enough free disk: ${gb(free)} free, ${gb(e.bytes * HEADROOM)} needed with headroom`,
      );
    if (free === null) log('generate: cannot read free disk (server elsewhere?); not checked');

    const tables = [...new Set(STEPS.map((s) => s.table))];
    const dropped = [];
    for (const t of tables) dropped.push(...(await secondaryIndexes(client, t)));
    for (const ix of dropped) await client.query(`DROP INDEX ${ix.name}`);
    try {
      for (const step of STEPS) {
        const started = Date.now();
        await step.run(client, plan, log);
        log(`generate: ${step.name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
    } finally {
      const started = Date.now();
      await client.query(`SET maintenance_work_mem = '512MB'`);
      for (const ix of dropped) await client.query(ix.def);
      log(
        `generate: ${dropped.length} indexes built in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    const started = Date.now();
    for (const t of tables) await client.query(`VACUUM (ANALYZE) ${t}`);
    log(`generate: vacuum and analyse in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return e;
  } finally {
    client.release();
  }
}

module.exports = { generate, estimate, BYTES_PER_TRANSACTION, BYTES_PER_MOVEMENT };

if (require.main === module) {
  const args = Object.fromEntries(
    process.argv
      .slice(2)
      .map((a) => /^--([^=]+)=(.*)$/.exec(a))
      .filter(Boolean)
      .map((m) => [m[1], m[2]]),
  );
  if (process.argv.includes('--help') || !args.database) {
    console.log(`usage: node bench/generate.js --database=postgres://… --institutions=<id,id> --merchants=<id,id>
       [--hot-merchant=<id>] [--hot-share=0.1] [--months=3] [--cardholders=100000]
       [--transactions-per-month=1000000] [--refund-share=0.02] [--currency=USD]
Fills a migrated database (institutions and merchants must exist) with purchase history.`);
    process.exit(args.database ? 0 : 2);
  }
  const { Pool } = require('pg');
  const pool = new Pool({ connectionString: args.database, max: 1 });
  const list = (s) => (s ? s.split(',') : []);
  generate(pool, {
    institutionIds: list(args.institutions),
    merchantIds: list(args.merchants),
    hotMerchantId: args['hot-merchant'],
    hotShare: args['hot-share'] ? Number(args['hot-share']) : undefined,
    months: Number(args.months ?? 3),
    cardholders: Number(args.cardholders ?? 100_000),
    transactionsPerMonth: Number(args['transactions-per-month'] ?? 1_000_000),
    refundShare: args['refund-share'] ? Number(args['refund-share']) : undefined,
    currency: args.currency,
  })
    .then(() => pool.end())
    .catch((e) => {
      console.error(e.message);
      process.exit(1);
    });
}
