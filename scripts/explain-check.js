#!/usr/bin/env node
// `node scripts/explain-check.js` (DATABASE_URL: a migrated database; the e2e test runs it on the
// test database): EXPLAINs each statement the api and worker run on a partitioned table, with
// parameters bound as the service binds them, and fails when one touches a partition it should
// not. Two kinds of statement (docs/performance.md, "Partitions", lists each one):
//   range — bounded by the partition key: only the partitions whose months meet the range;
//   index — not bounded by time (a cardholder's rows, for erasure and export): every partition,
//           each through an index (checked with sequential scans disabled, so a plan that still
//           scans a partition whole means no index serves the statement);
//   key   — by a webhook delivery's id, the month named through webhook_delivery_key: run
//           (EXPLAIN ANALYZE, rolled back) on a delivery made for the check, it may execute one
//           partition only (the others are pruned when the executor starts).
// A table not partitioned on this schema is skipped (said so). Add a statement here when one is
// added to a repository, with the same text.
const { Client } = require('pg');

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The webhook statements' by-id conditions, as libs/core/src/webhooks/delivery-key.ts writes them. */
const deliveryById = (a, id) =>
  `${a}.institution_id = (SELECT k.institution_id FROM webhook_delivery_key k WHERE k.id = ${id})
   AND ${a}.created_at = (SELECT k.created_at FROM webhook_delivery_key k WHERE k.id = ${id}) AND ${a}.id = ${id}`;
const attemptsOfDelivery = (a, id) =>
  `${a}.institution_id = (SELECT k.institution_id FROM webhook_delivery_key k WHERE k.id = ${id})
   AND ${a}.delivery_created_at = (SELECT k.created_at FROM webhook_delivery_key k WHERE k.id = ${id})
   AND ${a}.delivery_id = ${id}`;
const ON_KEY =
  'd.institution_id = k.institution_id AND d.created_at = k.created_at AND d.id = k.id';

/**
 * The statements. `params(ctx)` binds them (ctx: institution, now); `range(ctx)`, for a range
 * statement, is the [from, to) of the partition key it may read.
 */
const CHECKS = [
  {
    table: 'engagement_event',
    name: 'funnel: a raw edge of under an hour',
    where: 'ReportingRepository.funnelCounts',
    kind: 'range',
    sql: `SELECT 1 FROM engagement_event e
           WHERE e.institution_id = $1 AND e.kind = 'widget_view' AND e.occurred_at >= $2 AND e.occurred_at < $3`,
    params: (c) => [c.institution, new Date(c.now - HOUR / 2), new Date(c.now)],
    range: (c) => [new Date(c.now - HOUR / 2), new Date(c.now)],
  },
  {
    table: 'engagement_event',
    name: 'funnel: a raw edge across a month’s start',
    where: 'ReportingRepository.funnelCounts',
    kind: 'range',
    sql: `SELECT 1 FROM engagement_event e
           WHERE e.institution_id = $1 AND e.kind = 'impression' AND e.occurred_at >= $2 AND e.occurred_at < $3`,
    params: (c) => [
      c.institution,
      new Date(c.monthStart - HOUR / 2),
      new Date(c.monthStart + HOUR / 2),
    ],
    range: (c) => [new Date(c.monthStart - HOUR / 2), new Date(c.monthStart + HOUR / 2)],
  },
  {
    table: 'engagement_event',
    name: 'erasure: the cardholder’s events',
    where: 'ErasureRepository.engagement',
    kind: 'index',
    sql: `UPDATE engagement_event SET cardholder_token = $3
           WHERE institution_id = $1 AND cardholder_token = $2`,
    params: (c) => [c.institution, 'chk_explain_check', 'erased_explain_check'],
  },
  {
    table: 'engagement_event',
    name: 'export: the cardholder’s events',
    where: 'ErasureRepository.export',
    kind: 'index',
    sql: `SELECT kind, offer_id, occurred_at, id FROM engagement_event
           WHERE institution_id = $1 AND cardholder_token = $2`,
    params: (c) => [c.institution, 'chk_explain_check'],
  },
  // ---------------------------------------------------------------- webhook deliveries and attempts
  {
    table: 'webhook_delivery',
    name: 'lease claim: the deliveries of the jobs, locked',
    where: 'WebhookScheduleRepository.claim',
    kind: 'key',
    sql: `WITH k AS MATERIALIZED (
            SELECT k.id, k.institution_id, k.created_at FROM webhook_delivery_key k WHERE k.id = ANY($1::uuid[]))
          SELECT d.id FROM k CROSS JOIN LATERAL (
            SELECT d.id FROM webhook_delivery d WHERE ${ON_KEY} FOR UPDATE) d
           ORDER BY d.id`,
    params: (c) => [[c.delivery]],
  },
  {
    table: 'webhook_delivery',
    name: 'attempt outcome: the delivery under its lease',
    where: 'WebhookAttemptsRepository.record',
    kind: 'key',
    sql: `UPDATE webhook_delivery d SET attempt_count = d.attempt_count + 1
            FROM unnest($1::uuid[], $2::uuid[]) AS r(id, token) JOIN webhook_delivery_key k ON k.id = r.id
           WHERE ${ON_KEY} AND d.lease_token IS NOT DISTINCT FROM r.token`,
    params: (c) => [[c.delivery], [null]],
  },
  {
    table: 'webhook_delivery',
    name: 'release, skip, marks, redelivery, one delivery: by id',
    where: 'WebhookScheduleRepository, WebhookLogRepository.findDelivery',
    kind: 'key',
    sql: `UPDATE webhook_delivery d SET lease_token = NULL WHERE ${deliveryById('d', '$1::uuid')}`,
    params: (c) => [c.delivery],
  },
  {
    table: 'webhook_attempt',
    name: 'a delivery’s attempts (log, late acknowledgement)',
    where: 'WebhookLogRepository.findDelivery, WebhookAttemptsRepository.recordLateAcknowledgement',
    kind: 'key',
    sql: `SELECT attempt_number FROM webhook_attempt a WHERE ${attemptsOfDelivery('a', '$1::uuid')}`,
    params: (c) => [c.delivery],
  },
  {
    table: 'webhook_delivery',
    name: 'relay: pending deliveries never queued',
    where: 'WebhookScheduleRepository.unqueued',
    kind: 'index',
    sql: `SELECT id FROM webhook_delivery
           WHERE status = 'pending' AND enqueued_at IS NULL AND created_at < now() - interval '5 seconds'
           ORDER BY created_at LIMIT 500`,
    params: () => [],
  },
  {
    table: 'webhook_delivery',
    name: 'relay: overdue pending deliveries',
    where: 'WebhookScheduleRepository.overdue',
    kind: 'index',
    sql: `SELECT id FROM webhook_delivery
           WHERE status = 'pending' AND next_attempt_at < now() - interval '60 seconds'
             AND enqueued_at < now() - interval '60 seconds' ORDER BY next_attempt_at LIMIT 500`,
    params: () => [],
  },
  {
    table: 'webhook_delivery',
    name: 'resume: the institution’s pending deliveries',
    where: 'WebhookScheduleRepository.duePending',
    kind: 'index',
    sql: `SELECT created_at, id FROM webhook_delivery WHERE institution_id = $1 AND status = 'pending'`,
    params: (c) => [c.institution],
  },
  {
    table: 'webhook_delivery',
    name: 'delivery log: a creation range',
    where: 'WebhookLogRepository.listDeliveries',
    kind: 'range',
    sql: `SELECT id FROM webhook_delivery WHERE institution_id = $1 AND created_at >= $2 AND created_at < $3
           ORDER BY created_at DESC, id DESC LIMIT 50`,
    params: (c) => [c.institution, new Date(c.now - 7 * DAY), new Date(c.now)],
    range: (c) => [new Date(c.now - 7 * DAY), new Date(c.now)],
  },
  {
    table: 'webhook_delivery',
    name: 'replay: the next failed deliveries of its range',
    where: 'WebhookReplaysRepository.nextFailed',
    kind: 'range',
    sql: `SELECT id FROM webhook_delivery
           WHERE institution_id = $1 AND status = 'failed' AND created_at >= $2 AND created_at < $3
           ORDER BY created_at, id LIMIT 20 FOR UPDATE`,
    params: (c) => [c.institution, new Date(c.now - 30 * DAY), new Date(c.now)],
    range: (c) => [new Date(c.now - 30 * DAY), new Date(c.now)],
  },
  {
    table: 'webhook_delivery',
    name: 'erasure: the bodies of `claim.resolved` deliveries',
    where: 'ErasureRepository.claims',
    kind: 'index',
    sql: `SELECT d.id FROM webhook_delivery d
           WHERE d.institution_id = $1 AND d.event = 'claim.resolved' AND d.payload->>'claim_id' = $2`,
    params: (c) => [c.institution, '00000000-0000-4000-8000-000000000001'],
  },
];

/** Every plan node, depth first. */
function* nodes(plan) {
  yield plan;
  for (const p of plan.Plans ?? []) yield* nodes(p);
}

/** The partitions of `table` with their bounds (from the catalog), oldest first. */
async function partitionsOf(db, table) {
  const { rows } = await db.query(
    `SELECT c.relname AS name, b[1]::timestamptz AS "from", b[2]::timestamptz AS "to"
       FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid
      CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                      'FROM \\(''([^'']+)''\\) TO \\(''([^'']+)''\\)') b
      WHERE i.inhparent = to_regclass($1)
      ORDER BY 2`,
    [table],
  );
  return rows;
}

/** One statement: the partitions its plan touches, those allowed, and what is wrong (or null). */
async function checkOne(db, check, ctx) {
  const partitions = await partitionsOf(db, check.table);
  if (!partitions.length) return { ...check, skipped: `${check.table} is not partitioned here` };
  const names = new Set(partitions.map((p) => p.name));
  await db.query('BEGIN');
  try {
    // Plans as an index would serve them, whatever the (test) tables' statistics say.
    if (check.kind === 'index') await db.query('SET LOCAL enable_seqscan = off');
    // A delivery (of an institution made here) for the by-id statements to find.
    const c = check.kind === 'key' ? { ...ctx, ...(await aDelivery(db)) } : ctx;
    const analyze = check.kind === 'key' ? 'ANALYZE, ' : '';
    const { rows } = await db.query(
      `EXPLAIN (${analyze}FORMAT JSON) ${check.sql}`,
      check.params(c),
    );
    const scans = [...nodes(rows[0]['QUERY PLAN'][0].Plan)].filter((n) =>
      names.has(n['Relation Name']),
    );
    let touched = [...new Set(scans.map((n) => n['Relation Name']))];
    let allowed;
    let problem = null;
    if (check.kind === 'key') {
      touched = [
        ...new Set(scans.filter((n) => n['Actual Loops'] > 0).map((n) => n['Relation Name'])),
      ];
      allowed = [c.month.replace('webhook_delivery', check.table)];
      if (touched.length !== 1 || touched[0] !== allowed[0])
        problem = `executes ${touched.length} partition(s) (${touched.slice(0, 3).join(', ')}), not the delivery’s month alone: not pruned`;
    } else if (check.kind === 'range') {
      const [from, to] = check.range(ctx);
      allowed = partitions.filter((p) => p.from < to && p.to > from).map((p) => p.name);
      const extra = touched.filter((t) => !allowed.includes(t));
      if (extra.length)
        problem = `touches ${touched.length} partition(s), ${extra.length} beyond its range (${extra.slice(0, 3).join(', ')}…): not pruned`;
    } else {
      allowed = [...names];
      const whole = scans.filter((n) => n['Node Type'] === 'Seq Scan');
      if (whole.length)
        problem = `scans ${whole.length} partition(s) whole (${whole[0]['Relation Name']}…): no index serves it`;
    }
    return { ...check, touched, allowed: allowed.length, partitions: names.size, problem };
  } finally {
    await db.query('ROLLBACK');
  }
}

/** An institution and a delivery of it, in the check's transaction (rolled back). */
async function aDelivery(db) {
  const {
    rows: [i],
  } = await db.query(
    `INSERT INTO institution (name, plan) VALUES ('explain-check', 'starter') RETURNING id`,
  );
  const {
    rows: [d],
  } = await db.query(
    `INSERT INTO webhook_delivery (institution_id, event, payload) VALUES ($1, 'webhook.test', '{}')
     RETURNING id, tableoid::regclass::text AS month`,
    [i.id],
  );
  return { delivery: d.id, month: d.month };
}

/** Runs every check (or `checks`) on the database of `client`; institution: any uuid. */
async function runChecks(client, checks = CHECKS) {
  const now = new Date();
  const ctx = {
    institution: '00000000-0000-4000-8000-000000000000',
    now: now.getTime(),
    monthStart: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
  };
  const out = [];
  for (const c of checks) out.push(await checkOne(client, c, ctx));
  return out;
}

module.exports = { CHECKS, runChecks, checkOne };

if (require.main === module) {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/offers';
  const client = new Client({ connectionString: url });
  client
    .connect()
    .then(() => runChecks(client))
    .then((results) => {
      let failed = 0;
      for (const r of results) {
        if (r.skipped) console.log(`skip  ${r.table}: ${r.name} (${r.skipped})`);
        else if (r.problem) {
          failed++;
          console.log(`FAIL  ${r.table}: ${r.name} [${r.where}]: ${r.problem}`);
        } else
          console.log(
            `ok    ${r.table}: ${r.name} [${r.where}]: ${r.kind === 'range' ? `${r.touched.length} of ${r.partitions} partitions (allowed ${r.allowed})` : r.kind === 'key' ? `executes ${r.touched[0]} of ${r.partitions} partitions` : `${r.touched.length} of ${r.partitions} partitions, each by index`}`,
          );
      }
      return client.end().then(() => process.exit(failed ? 1 : 0));
    })
    .catch((e) => {
      console.error(e.message);
      process.exit(2);
    });
}
