#!/usr/bin/env node
// The project's one data generator: fills a migrated database with months of card history for
// several institutions, fast, straight into PostgreSQL (never through the API). Benches call
// generate(); `node bench/generate.js --help` runs it by hand. Each kind of data is a step (STEPS
// below, each a function of its own) that reads the same plan; a new kind adds a step there and
// its bytes to estimate().
//
// Rows are made by INSERT … SELECT over generate_series inside PostgreSQL rather than COPY: the
// same 1,000,000 transaction rows took 14.4–22.7 s by INSERT … SELECT and 14.6–20.3 s by COPY
// from a client (psql \copy of the text already made; making it took another 9.4 s, work a
// client-side generator does on the same cores), alternated on the shared two-core host at load
// average 4–8. Nothing crosses the wire, no text is built or parsed, and no new dependency is
// needed. The secondary indexes of the tables filled are dropped first and built again at the end
// (one sort per index instead of one insertion per row), then the tables are vacuumed and
// analysed, as after a restore. Partitions for the months generated are created first through the
// project's partition creation (`cli partitions`), so the generator writes whatever tables are
// partitioned on the schema it runs on.
const { spawnSync } = require('child_process');
const { Client } = require('pg');
const { statfsSync } = require('fs');
const { join } = require('path');

/** A generated "month": 30 days back from the plan's end. */
const MONTH_MS = 30 * 86_400_000;

/**
 * Bytes a stored row takes with its indexes, per table (the growth bench prints them at its scale:
 * bytes_per_row). Transactions 560 measured on the lift bench's 1.53M-row load.
 */
const BYTES = {
  transaction: 560,
  transaction_key: 264, // docs/retention.md
  statement_movement: 450,
  redemption: 420,
  settlement_entry: 300,
  webhook_delivery: 1_400,
  webhook_attempt: 420,
  engagement_event: 190,
};
const BYTES_PER_TRANSACTION = BYTES.transaction;
const BYTES_PER_MOVEMENT = BYTES.statement_movement;
/** Free space kept beyond the estimate (index builds sort on disk, WAL grows meanwhile). */
const HEADROOM = 1.5;

/**
 * @typedef {object} Plan
 * @property {string[]} institutionIds  institutions to fill (they must exist)
 * @property {string[]} merchantIds     merchants purchases go to (they must exist)
 * @property {string} [hotMerchantId]   one merchant that takes `hotShare` of the purchases
 * @property {number} [hotShare]        0–1, default 0.1
 * @property {number} months            months (of 30 days) of history, ending at `end`
 * @property {Date} [end]               default now
 * @property {number} cardholders       per institution, numbered 1…cardholders
 * @property {string} [cardholderPrefix] tokens are this and the number, default `ch-`
 * @property {number} transactionsPerMonth  purchases per institution and month
 * @property {number} [refundShare]     share of purchases refunded (in part), default 0.02
 * @property {string} [currency]        default USD
 * @property {string[]} [offerIds]      offers of the institutions: with them, every cardholder is
 *                                      enrolled in one, `redemptionShare` of the purchases are
 *                                      rewarded, and each reward within `webhookDays` has its
 *                                      delivered webhook and one attempt
 * @property {number} [redemptionShare] default 0.1 (so 0.1 webhook attempts per transaction)
 * @property {number} [webhookDays]     days of webhook history kept (retention), default 90
 * @property {number} [eventsPerTransaction] feed events per purchase, default 3 (0: none)
 * @property {number} [engagementMonths] months of events kept (retention), default 12
 * @property {number} [movementsPerMonth] statement movements per institution and calendar month
 *                                        (the months before `end`'s), default 0
 * @property {string} [databaseUrl]     the database (for `cli partitions`); generate() reads the pool's
 * @property {string} [tag]             refs start `gen-<tag>-`; default a random one per run
 */

/** Whether the plan rewards purchases (enrollments, redemptions, webhooks). */
const rewards = (plan) =>
  plan.transactionsPerMonth > 0 && !!plan.offerIds?.length && (plan.redemptionShare ?? 0.1) > 0;

/** What the plan will store, and the bytes it needs. */
function estimate(plan) {
  const months = plan.institutionIds.length * plan.months;
  const purchases = months * plan.transactionsPerMonth;
  const refunds = Math.round(purchases * (plan.refundShare ?? 0.02));
  const transactions = purchases + refunds;
  const share = rewards(plan) ? (plan.redemptionShare ?? 0.1) : 0;
  const redemptions = Math.round(purchases * share);
  const webhookMonths = Math.min(plan.months, (plan.webhookDays ?? 90) / 30);
  const deliveries = Math.round(
    plan.institutionIds.length * webhookMonths * plan.transactionsPerMonth * share,
  );
  const events = Math.round(
    plan.institutionIds.length *
      Math.min(plan.months, plan.engagementMonths ?? 12) *
      plan.transactionsPerMonth *
      (plan.eventsPerTransaction ?? 3),
  );
  const movements = months * (plan.movementsPerMonth ?? 0);
  return {
    purchases,
    refunds,
    transactions,
    redemptions,
    webhook_deliveries: deliveries,
    webhook_attempts: deliveries,
    engagement_events: events,
    movements,
    bytes:
      transactions * (BYTES.transaction + BYTES.transaction_key) +
      redemptions * (BYTES.redemption + BYTES.settlement_entry) +
      deliveries * (BYTES.webhook_delivery + BYTES.webhook_attempt) +
      events * BYTES.engagement_event +
      movements * BYTES.statement_movement,
  };
}

const secondsSince = (t) => ((Date.now() - t) / 1000).toFixed(1);

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

/** Months (of 30 days) back from `end`: the range [from, to) of month `m` (0 = the latest). */
function monthRange(plan, m) {
  const end = plan.end ?? new Date();
  const to = new Date(end.getTime() - m * MONTH_MS);
  return { from: new Date(to.getTime() - MONTH_MS), to };
}

/** The SQL of a cardholder token of number `n` (1…cardholders), as the benches' own seeds name them. */
const token = (plan, n) => `'${plan.cardholderPrefix ?? 'ch-'}' || (${n})::text`;

/** The refs this run writes start with this (so a second run on the same database adds, not collides). */
const refPrefix = (plan) => `gen-${plan.tag}-`;
/**
 * received_at of a row transacted `at`: within a day after it, never after now. Each month's rows
 * land in their month's partition, as they would in a service that ran through those months.
 */
const RECEIVED = (at) => `least(now(), ${at} + random() * interval '1 day')`;

/**
 * Runs `fn` with this session's triggers off (session_replication_role = replica; the bench's
 * user is a superuser). For the transaction inserts: the table's statement trigger that keys rows
 * inserted without a key anti-joins each statement's rows against transaction_key, which a fresh
 * key table's missing statistics turn into a scan of the whole key table per row (a month of
 * 12,255 rows did not finish in a minute); the keys step writes them in one pass instead. No
 * foreign key is checked meanwhile either: the rows name institutions and merchants that exist.
 */
async function withoutTriggers(client, fn) {
  await client.query(`SET session_replication_role = replica`);
  try {
    return await fn();
  } finally {
    await client.query(`RESET session_replication_role`);
  }
}

/** What the engagement_event roll-up trigger reads and writes. */
const ROLLUP_TABLES = [
  'engagement_cardholder_number',
  'engagement_number_counter',
  'engagement_hourly',
  'engagement_viewers_hourly',
  'engagement_viewers_daily',
];

const STEPS = [
  {
    name: 'partitions',
    tables: [],
    applies: () => true,
    /**
     * The monthly partitions of every partitioned table for the months generated, through the
     * project's own partition creation (`cli partitions`, the worker's upkeep call): a row whose
     * month has no partition would be refused.
     */
    async run(client, plan, log) {
      const url = plan.databaseUrl;
      if (!url) return log('  no databaseUrl: partitions not created (they must exist)');
      const end = plan.end ?? new Date();
      const from = monthRange(plan, plan.months - 1).from;
      const r = spawnSync(
        process.execPath,
        [
          join(__dirname, '..', 'dist/apps/cli/main.js'),
          'partitions',
          `--from=${from.toISOString()}`,
          `--through=${end.toISOString()}`,
        ],
        { env: { ...process.env, ...(plan.env ?? {}), DATABASE_URL: url }, encoding: 'utf8' },
      );
      if (r.status !== 0) throw new Error(`cli partitions: ${r.stderr || r.stdout}`);
      const created = r.stdout.split('\n').filter(Boolean);
      log(
        `  ${created.length} partition(s) created${created.length ? `: ${created.join(', ')}` : ''}`,
      );
    },
  },
  {
    name: 'purchases',
    tables: ['transaction'],
    applies: (plan) => plan.transactionsPerMonth > 0,
    /**
     * Per institution and month: cardholders spread evenly, merchants by share, amounts 5–100; a
     * `redemptionShare` of them matched (the redemption step rewards those), the rest unmatched.
     */
    async run(client, plan, log) {
      const others = plan.merchantIds.filter((m) => m !== plan.hotMerchantId);
      const rewarded = plan.offerIds?.length ? (plan.redemptionShare ?? 0.1) : 0;
      for (const [i, inst] of plan.institutionIds.entries()) {
        for (let m = plan.months - 1; m >= 0; m--) {
          const { from, to } = monthRange(plan, m);
          const started = Date.now();
          // Cardholder g·7919 mod C runs through every cardholder (7919 is prime), so each one buys.
          await withoutTriggers(client, () =>
            client.query(
              `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, instrument_token, instrument_type,
                                      merchant_id, amount, currency, transacted_at, received_at, source, kind, status, processed_at)
             SELECT $1, $2 || g, ${token(plan, '1 + (g * 7919) % $3')}, 'card-' || ((g * 7919) % $3), 'card',
                    CASE WHEN $4::uuid IS NOT NULL AND random() < $5 THEN $4::uuid
                         ELSE ($6::uuid[])[1 + floor(random() * array_length($6::uuid[], 1))::int] END,
                    round((5 + random() * 95)::numeric, 2), $7, at, ${RECEIVED('at')},
                    'batch', 'purchase', CASE WHEN g % 1000 < $11 THEN 'matched' ELSE 'unmatched' END, now()
               FROM (SELECT g, $8::timestamptz + random() * ($9::timestamptz - $8::timestamptz) AS at
                       FROM generate_series(1::bigint, $10::bigint) g) s`,
              [
                inst,
                `${refPrefix(plan)}${i}-${m}-`,
                plan.cardholders,
                plan.hotMerchantId ?? null,
                plan.hotShare ?? 0.1,
                others,
                plan.currency ?? 'USD',
                from,
                to,
                plan.transactionsPerMonth,
                Math.round(rewarded * 1000),
              ],
            ),
          );
          log(
            `  institution ${i + 1}/${plan.institutionIds.length}, month ${plan.months - m}/${plan.months}: ` +
              `${plan.transactionsPerMonth.toLocaleString('en')} purchases in ${secondsSince(started)} s`,
          );
        }
      }
    },
  },
  {
    name: 'refunds',
    tables: ['transaction'],
    applies: (plan) => plan.transactionsPerMonth > 0 && (plan.refundShare ?? 0.02) > 0,
    /** A share of this run's purchases refunded in part (10–100 %), a few days later. */
    async run(client, plan) {
      await withoutTriggers(client, () =>
        client.query(
          `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, instrument_token, instrument_type,
                                  merchant_id, amount, currency, transacted_at, received_at, source, kind,
                                  original_transaction_ref, status, processed_at)
         SELECT institution_id, 'r' || transaction_ref, cardholder_token, instrument_token, instrument_type, merchant_id,
                round(amount * (0.1 + 0.9 * random())::numeric, 2), currency,
                x.at, ${RECEIVED('x.at')}, 'batch', 'refund', transaction_ref, 'unmatched', now()
           FROM transaction, LATERAL (SELECT least(now(), transacted_at + random() * interval '5 days')) x(at)
          WHERE institution_id = ANY($1::uuid[]) AND kind = 'purchase' AND transaction_ref LIKE $3
            AND random() < $2`,
          [plan.institutionIds, plan.refundShare ?? 0.02, `${refPrefix(plan)}%`],
        ),
      );
    },
  },
  {
    name: 'transaction keys',
    tables: ['transaction_key'],
    applies: (plan) => plan.transactionsPerMonth > 0,
    /**
     * The idempotency key of each transaction this run wrote (the service inserts the key first;
     * the table's trigger that keys other inserts was off for the steps above, see
     * withoutTriggers), in key order so the primary key grows at its end. Nothing on a schema
     * without the key table.
     */
    async run(client, plan) {
      const { rows } = await client.query(
        `SELECT to_regclass('transaction_key') IS NOT NULL AS e,
                EXISTS (SELECT 1 FROM information_schema.columns
                         WHERE table_name = 'transaction_key' AND column_name = 'refund_of') AS refunds`,
      );
      if (!rows[0].e) return;
      // A refund's key names what it refunds, as the key trigger writes it (migration RefundKeys).
      const [column, value] = rows[0].refunds
        ? [', refund_of', `, CASE WHEN kind = 'refund' THEN original_transaction_ref END`]
        : ['', ''];
      await client.query(
        `INSERT INTO transaction_key (institution_id, transaction_ref, transaction_id, received_at${column})
         SELECT institution_id, transaction_ref, id, received_at${value} FROM transaction
          WHERE institution_id = ANY($1::uuid[]) AND (transaction_ref LIKE $2 OR transaction_ref LIKE 'r' || $2)
          ORDER BY 1, 2`,
        [plan.institutionIds, `${refPrefix(plan)}%`],
      );
    },
  },
  {
    name: 'cardholder activity',
    tables: ['cardholder_activity'],
    applies: (plan) => plan.transactionsPerMonth > 0,
    /**
     * The purchase months the transaction store records as it inserts purchases (libs/core
     * cardholder-activity.ts: one row per institution, cardholder and UTC month with a purchase),
     * for the purchases this run wrote. Nothing on a schema without the table.
     */
    async run(client, plan) {
      const { rows } = await client.query(
        `SELECT to_regclass('cardholder_activity') IS NOT NULL AS e`,
      );
      if (!rows[0].e) return;
      await client.query(
        `INSERT INTO cardholder_activity (institution_id, cardholder_token, month)
         SELECT DISTINCT institution_id, cardholder_token, date_trunc('month', transacted_at AT TIME ZONE 'UTC')::date
           FROM transaction
          WHERE institution_id = ANY($1::uuid[]) AND transaction_ref LIKE $2 AND kind IN ('purchase', 'clearing')
         ON CONFLICT DO NOTHING`,
        [plan.institutionIds, `${refPrefix(plan)}%`],
      );
    },
  },
  {
    name: 'enrollments',
    tables: [], // its indexes stay: the insert's ON CONFLICT needs the unique one
    analyze: ['cardholder_offer'],
    applies: (plan) => rewards(plan),
    /**
     * Every cardholder of each institution enrolled in one of `offerIds` (number n in offer
     * n mod k), so each matched purchase has an enrollment to reward; one already there is kept.
     */
    async run(client, plan) {
      for (const inst of plan.institutionIds)
        await client.query(
          `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, added_at, status)
           SELECT $1, ($2::uuid[])[1 + n % array_length($2::uuid[], 1)], ${token(plan, 'n')}, $4, 'active'
             FROM generate_series(1, $3::int) n
           ON CONFLICT (institution_id, cardholder_token, offer_id) WHERE status <> 'expired' DO NOTHING`,
          [inst, plan.offerIds, plan.cardholders, monthRange(plan, plan.months - 1).from],
        );
    },
  },
  {
    name: 'redemptions',
    tables: ['redemption', 'settlement_entry'],
    applies: (plan) => rewards(plan),
    /**
     * One redemption for each matched purchase of this run ($5 back on a merchant-funded $6.25),
     * on the cardholder's enrollment; settled when older than 30 days, else pending. Each with its
     * settlement entry, as matching writes them: the reporting pages join the two, and without
     * entries PostgreSQL plans those pages for a join that finds nothing. Triggers off: the
     * entries' triggers would book statement movements, which the movements step writes on its
     * own (with them on, every generated redemption was booked twice).
     */
    async run(client, plan) {
      const end = plan.end ?? new Date();
      await withoutTriggers(client, () =>
        client.query(
          `WITH r AS (
         INSERT INTO redemption (institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency,
                                 purchase_amount, cashback_amount, merchant_funded_amount, service_revenue_amount,
                                 institution_payout_amount, status, created_at, settled_at, source, transaction_ref,
                                 transacted_at)
         SELECT t.institution_id, t.id, e.id, e.offer_id, t.cardholder_token, t.currency, (t.amount * 100)::bigint,
                500, 625, 125, 500,
                CASE WHEN t.transacted_at < $3::timestamptz - interval '30 days' THEN 'settled' ELSE 'pending' END,
                t.transacted_at + interval '1 minute',
                CASE WHEN t.transacted_at < $3::timestamptz - interval '30 days' THEN t.transacted_at + interval '30 days' END,
                'matching', t.transaction_ref, t.transacted_at
           FROM transaction t
           JOIN (SELECT DISTINCT ON (institution_id, cardholder_token) id, institution_id, cardholder_token, offer_id
                   FROM cardholder_offer WHERE institution_id = ANY($1::uuid[]) AND offer_id = ANY($4::uuid[])
                  ORDER BY institution_id, cardholder_token, added_at) e
             ON e.institution_id = t.institution_id AND e.cardholder_token = t.cardholder_token
          WHERE t.institution_id = ANY($1::uuid[]) AND t.status = 'matched' AND t.transaction_ref LIKE $2
         RETURNING id, institution_id, offer_id, currency, merchant_funded_amount, service_revenue_amount,
                   institution_payout_amount, status, created_at, settled_at)
         INSERT INTO settlement_entry (institution_id, redemption_id, offer_id, merchant_id, currency,
                                       merchant_funded_amount, service_revenue_amount, institution_payout_amount,
                                       status, created_at, settled_at)
         SELECT r.institution_id, r.id, r.offer_id, o.merchant_id, r.currency, r.merchant_funded_amount,
                r.service_revenue_amount, r.institution_payout_amount, r.status, r.created_at, r.settled_at
           FROM r JOIN offer o ON o.id = r.offer_id`,
          [plan.institutionIds, `${refPrefix(plan)}%`, end, plan.offerIds],
        ),
      );
    },
  },
  {
    name: 'webhook deliveries and attempts',
    tables: ['webhook_delivery', 'webhook_attempt'],
    applies: (plan) => rewards(plan),
    /**
     * Each redemption of this run still within webhook retention (`webhookDays`, default 90:
     * older ones would have left with their partitions) has its delivered `redemption.completed`
     * body and one attempt answered 200: 0.1 attempts per transaction at the default share.
     */
    async run(client, plan) {
      const end = plan.end ?? new Date();
      await client.query(
        `WITH d AS (
           INSERT INTO webhook_delivery (institution_id, redemption_id, event, payload, status, attempt_count,
                                         series_attempt_count, enqueued_at, last_attempt_at, delivered_at, created_at)
           SELECT r.institution_id, r.id, 'redemption.completed',
                  jsonb_build_object('event', 'redemption.completed', 'redemption_id', r.id, 'institution_id', r.institution_id,
                    'offer_id', r.offer_id, 'cardholder_token', r.cardholder_token,
                    'cardholder_token_masked', left(r.cardholder_token, 3) || '****' || right(r.cardholder_token, 4),
                    'institution_payout_amount', 5, 'occurred_at', r.created_at, 'transaction_ref', r.transaction_ref,
                    'purchase_amount', r.purchase_amount / 100.0, 'merchant_funded_amount', 6.25, 'goal_round', null,
                    'currency', r.currency),
                  'delivered', 1, 1, r.created_at, r.created_at + interval '80 ms', r.created_at + interval '80 ms', r.created_at
             FROM redemption r
            WHERE r.institution_id = ANY($1::uuid[]) AND r.transaction_ref LIKE $2
              AND r.created_at >= $3::timestamptz - ($4::int * interval '1 day')
           RETURNING id, institution_id, created_at)
         INSERT INTO webhook_attempt (delivery_id, attempt_number, trigger, url, started_at, duration_ms, http_status,
                                      response_excerpt, request_headers, institution_id, delivery_created_at)
         SELECT d.id, 1, 'automatic', 'https://bank.example/webhooks/offers', d.created_at + interval '10 ms', 70, 200,
                '{"ok":true}', '{"content-type": "application/json", "user-agent": "offers-webhooks/1"}'::jsonb,
                d.institution_id, d.created_at
           FROM d`,
        [plan.institutionIds, `${refPrefix(plan)}%`, end, plan.webhookDays ?? 90],
      );
    },
  },
  {
    name: 'engagement events',
    tables: ['engagement_event'],
    applies: (plan) => plan.transactionsPerMonth > 0 && (plan.eventsPerTransaction ?? 3) > 0,
    /**
     * `eventsPerTransaction` (default 3) feed events per purchase for the months engagement
     * retention keeps (`engagementMonths`, default 12 of 30 days: within the 13 calendar months
     * kept): for each three, one widget view and two impressions, one in ten of those an add.
     * Inserted a month at a time through the table's roll-up trigger, as the recorder writes.
     */
    async run(client, plan, log) {
      const perMonth = Math.round(plan.transactionsPerMonth * (plan.eventsPerTransaction ?? 3));
      const months = Math.min(plan.months, plan.engagementMonths ?? 12);
      for (const [i, inst] of plan.institutionIds.entries()) {
        for (let m = months - 1; m >= 0; m--) {
          const { from, to } = monthRange(plan, m);
          const started = Date.now();
          // A session of its own for each month, after fresh statistics: the roll-up trigger's
          // statements are planned once per session, and planned on an empty
          // engagement_cardholder_number they made the second month of a 1M-transaction load run
          // for minutes instead of 13 s.
          const session = plan.databaseUrl
            ? new Client({ connectionString: plan.databaseUrl })
            : null;
          await session?.connect();
          const db = session ?? client;
          await db.query(`ANALYZE ${ROLLUP_TABLES.join(', ')}`);
          await db.query(
            `INSERT INTO engagement_event (institution_id, kind, cardholder_token, offer_id, occurred_at)
             SELECT $1, CASE WHEN g % 3 = 0 THEN 'widget_view' WHEN g % 30 = 2 THEN 'add_success' ELSE 'impression' END,
                    ${token(plan, '1 + ((g / 3) * 7919) % $2')},
                    CASE WHEN g % 3 = 0 OR $3::uuid[] IS NULL THEN NULL
                         ELSE ($3::uuid[])[1 + g % array_length($3::uuid[], 1)] END,
                    $4::timestamptz + random() * ($5::timestamptz - $4::timestamptz)
               FROM generate_series(0::bigint, $6::bigint - 1) g`,
            [
              inst,
              plan.cardholders,
              plan.offerIds?.length ? plan.offerIds : null,
              from,
              to,
              perMonth,
            ],
          );
          await session?.end();
          log(
            `  institution ${i + 1}/${plan.institutionIds.length}, month ${months - m}/${months}: ` +
              `${perMonth.toLocaleString('en')} events in ${secondsSince(started)} s`,
          );
        }
      }
    },
  },
  {
    name: 'statement movements',
    tables: ['statement_movement'],
    applies: (plan) => (plan.movementsPerMonth ?? 0) > 0,
    /**
     * Ledger lines straight into statement_movement (as the settlement_entry triggers book them):
     * per institution and calendar month (UTC) before `end`'s, earned 70 %, settled 15 %,
     * reversed 10 %, clawback 5 %; the institution's USD book opens on the first month's first
     * day, so closing through yesterday closes them all.
     */
    async run(client, plan, log) {
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
              `${plan.movementsPerMonth.toLocaleString('en')} movements in ${secondsSince(started)} s`,
          );
        }
      }
    },
  },
];

/**
 * Fills the database for `plan`. Prints what it will store and the disk it needs; refuses
 * (throws) when the filesystem of the database's data directory has less free space than that
 * with headroom. Returns the estimate and the seconds each step took.
 */
async function generate(pool, plan, log = console.log) {
  plan = {
    tag: Math.random().toString(36).slice(2, 8),
    databaseUrl: pool.options?.connectionString,
    ...plan,
  };
  const e = estimate(plan);
  const client = await pool.connect();
  try {
    const free = await freeBytes(client);
    log(
      `generate: ${plan.institutionIds.length} institution(s) × ${plan.months} month(s): ` +
        `${e.purchases.toLocaleString('en')} purchases, ${e.refunds.toLocaleString('en')} refunds, ` +
        `${e.redemptions.toLocaleString('en')} redemptions, ${e.webhook_deliveries.toLocaleString('en')} webhook deliveries ` +
        `(one attempt each), ${e.engagement_events.toLocaleString('en')} engagement events, ` +
        `${e.movements.toLocaleString('en')} statement movements; ` +
        `disk needed ≈ ${gb(e.bytes)} (free: ${free === null ? 'unknown' : gb(free)})`,
    );
    if (free !== null && free < e.bytes * HEADROOM)
      throw new Error(
        `not enough free disk: ${gb(free)} free, ${gb(e.bytes * HEADROOM)} needed with headroom`,
      );
    if (free === null) log('generate: cannot read free disk (server elsewhere?); not checked');

    const steps = STEPS.filter((s) => s.applies(plan));
    const tables = [...new Set(steps.flatMap((s) => s.tables))];
    const dropped = [];
    for (const t of tables) dropped.push(...(await secondaryIndexes(client, t)));
    for (const ix of dropped) await client.query(`DROP INDEX ${ix.name}`);
    const seconds = {};
    try {
      for (const step of steps) {
        const started = Date.now();
        await step.run(client, plan, log);
        // Statistics for the next steps' joins (a fresh table looks empty to the planner).
        for (const t of [...step.tables, ...(step.analyze ?? [])])
          await client.query(`ANALYZE ${t}`);
        seconds[step.name] = Number(secondsSince(started));
        log(`generate: ${step.name} in ${seconds[step.name]} s`);
      }
    } finally {
      const started = Date.now();
      await client.query(`SET maintenance_work_mem = '512MB'`);
      // A partitioned table's index reads `ON ONLY <table>` in pg_indexes: built that way it would
      // cover no partition (every month left without it); without ONLY it builds each one.
      for (const ix of dropped) await client.query(ix.def.replace(' ON ONLY ', ' ON '));
      seconds.indexes = Number(secondsSince(started));
      log(`generate: ${dropped.length} indexes built in ${seconds.indexes} s`);
    }
    const started = Date.now();
    for (const t of tables) await client.query(`VACUUM (ANALYZE) ${t}`);
    seconds.vacuum = Number(secondsSince(started));
    log(`generate: vacuum and analyse in ${seconds.vacuum} s`);
    return { ...e, seconds };
  } finally {
    client.release();
  }
}

module.exports = { generate, estimate, BYTES, BYTES_PER_TRANSACTION, BYTES_PER_MOVEMENT };

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
       [--offers=<id,id>] [--redemption-share=0.1] [--webhook-days=90]
       [--events-per-transaction=3] [--engagement-months=12]
Fills a migrated, built checkout's database (institutions, merchants and offers must exist) with
purchase history, rewards with their webhooks, and feed events.`);
    process.exit(args.database ? 0 : 2);
  }
  const { Pool } = require('pg');
  const pool = new Pool({ connectionString: args.database, max: 1 });
  const list = (s) => (s ? s.split(',') : []);
  const num = (s) => (s === undefined ? undefined : Number(s));
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
    offerIds: list(args.offers),
    redemptionShare: num(args['redemption-share']),
    webhookDays: num(args['webhook-days']),
    eventsPerTransaction: num(args['events-per-transaction']),
    engagementMonths: num(args['engagement-months']),
  })
    .then(() => pool.end())
    .catch((e) => {
      console.error(e.message);
      process.exit(1);
    });
}
