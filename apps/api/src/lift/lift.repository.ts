import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { cursorColumn, KeysetAfter, keysetSql } from '@app/db';
import { activityMonthSql, PURCHASE_KINDS_SQL } from '@app/core';

/** The offer as the lift report needs it, with the institutions it is offered to. */
export interface LiftOfferRow {
  id: string;
  merchant_id: string;
  currency: string;
  starts_at: Date;
  expires_at: Date;
  holdout_bps: number;
  /** Every institution the offer is offered to (its targets, or every institution). */
  institution_ids: string[];
}

/** An offer as the portal lists it. */
export interface PortalOfferRow {
  id: string;
  cursor_t: string;
  title: string | null;
  merchant_name: string;
  status: string;
  currency: string;
  starts_at: Date;
  expires_at: Date;
  holdout_bps: number;
  created_at: Date;
}

/** One group's sufficient statistics; sums as exact integer text (× 10⁴, squares × 10⁸). */
export interface GroupRow {
  holdout: boolean;
  cardholders: number;
  buyers: number;
  spend_e4: string;
  squares_e8: string;
  pre_buyers: number;
  pre_spend_e4: string;
}

/** An institution's holdout key as the SQL HMAC takes it: K ⊕ ipad and K ⊕ opad, 64 bytes each. */
export interface HmacPads {
  institutionId: string;
  inner: Buffer;
  outer: Buffer;
}

/** HMAC-SHA256's padded keys (RFC 2104) for a 32-byte key, so PostgreSQL needs only sha256(). */
export function hmacPads(institutionId: string, key: Buffer): HmacPads {
  const block = Buffer.alloc(64);
  key.copy(block);
  return {
    institutionId,
    inner: Buffer.from(block.map((b) => b ^ 0x36)),
    outer: Buffer.from(block.map((b) => b ^ 0x5c)),
  };
}

/** HMAC-SHA256 in SQL with the padded keys (hmacPads): the digest of offer id ‖ token. */
export function holdoutMacSql(inner: string, outer: string, offerId: string, token: string) {
  return `sha256(${outer} || sha256(${inner} || convert_to(${offerId} || ${token}, 'UTF8')))`;
}

/**
 * The holdout bucket of libs/domain/src/holdout.ts from that digest (a column: it is read once per
 * byte): the first 8 bytes as two unsigned 32-bit halves hi and lo, and u = (hi·2^32 + lo) mod
 * 10,000 = ((hi mod 10,000)·7296 + lo) mod 10,000 (2^32 ≡ 7296), in bigint without overflow.
 * Byte arithmetic: a hex text cast to bit(64) costs twice as much over a million cardholders.
 */
export function holdoutBucketSql(mac: string) {
  const word = (from: number) =>
    `((get_byte(${mac}, ${from})::bigint << 24) | (get_byte(${mac}, ${from + 1}) << 16) | (get_byte(${mac}, ${from + 2}) << 8) | get_byte(${mac}, ${from + 3}))`;
  return `((${word(0)} % 10000 * 7296 + ${word(4)}) % 10000)`;
}

/** Purchase kinds as literals, so that the planner matches the partial indexes' predicate. */
const PURCHASES = `t.kind IN (${PURCHASE_KINDS_SQL})`;
/** The months of the pre-period's start and of the window's end (cardholder_activity's months). */
const FIRST_MONTH = activityMonthSql('$7::timestamptz');
const LAST_MONTH = activityMonthSql('$9::timestamptz');
/** The cardholders of shard $12 of $11 (a hash of the token; refunds follow their purchases). */
const SHARD = (token: string) => `abs(hashtext(${token}) % $11::int) = $12::int`;

/**
 * Per group (holdout or exposed), over the eligible cardholders of the institutions in $1: count,
 * buyers, net spend at the merchant in the window and its sum of squares, and the same for the
 * pre-period. Eligible: a purchase at the institution in [pre, end) (any merchant), read from
 * cardholder_activity's months (a row in a month strictly inside the range proves one, and so does
 * a purchase at the merchant; a cardholder seen only in the two edge months is checked against its
 * purchases' times through transaction_cardholder_idx). Purchases: plain purchases and a card
 * chain's clearing (the one its chain counted), at the offer's merchant, in the offer's currency or
 * without one, net of every refund stored that names them (a chain's refund may name its
 * authorization): a cardholder's net spend is the sum of its purchases less the sum of their
 * refunds, joined by reference (one read of the institution's refunds, hashed, rather than an
 * index probe per purchase). Statistics per cardholder are folded in PostgreSQL; no cardholder row
 * leaves it.
 *
 * $1 institution ids, $2 inner pads, $3 outer pads, $4 offer id (lowercase text), $5 merchant,
 * $6 currency, $7 pre-period start, $8 window start, $9 window end, $10 holdout_bps, $11 shards,
 * $12 this statement's shard.
 * Amounts are summed as integers of 10⁻⁴ (the column's scale), exact and far cheaper to aggregate
 * than numeric. One aggregate builds each cardholder's row from its activity months, purchases and
 * refunds together (one hash of ~1M cardholders, not one for eligibility, one for sums and a join
 * of the two). Reads: the months of purchases and of refunds each scanned once by parallel workers
 * (a month of a bank's transactions holds 10 % of them at a busy merchant: a scan beats 1.5 M index
 * probes), a card_chain_pkey probe per clearing (a join, not EXISTS: a correlated subquery keeps
 * the scan from going parallel). MATERIALIZED keeps each step as written: the purchases read once;
 * OFFSET 0 keeps each cardholder's HMAC computed once (the bucket reads it byte by byte). An erased
 * cardholder (a pseudonym) keeps the bucket its token had at erasure (erased_holdout_bucket,
 * docs/privacy.md): the offer's few such rows are read first and hashed, where a probe of the
 * table's key per cardholder cost a second per million.
 */
const GROUPS_SQL = `
  WITH keys AS (
    SELECT * FROM unnest($1::uuid[], $2::bytea[], $3::bytea[]) AS k(institution_id, inner_pad, outer_pad)
  ),
  buys AS MATERIALIZED (
    SELECT t.institution_id, t.cardholder_token, t.transacted_at >= $8 AS in_window,
           (t.amount * 10000)::bigint AS amount,
           t.transaction_ref, CASE WHEN t.kind = 'clearing' THEN t.original_transaction_ref END AS authorization_ref
      FROM transaction t
      LEFT JOIN card_chain c
        ON t.kind = 'clearing' AND c.institution_id = t.institution_id
       AND c.authorization_ref = t.original_transaction_ref AND c.clearing_ref = t.transaction_ref
     WHERE t.institution_id = ANY($1::uuid[]) AND t.merchant_id = $5 AND ${PURCHASES}
       AND t.transacted_at >= $7 AND t.transacted_at < $9
       AND (t.currency = $6 OR t.currency IS NULL)
       AND (t.kind = 'purchase' OR t.original_transaction_ref IS NULL OR c.institution_id IS NOT NULL)
       AND ${SHARD('t.cardholder_token')}
  ),
  refunds AS MATERIALIZED (
    SELECT r.institution_id, r.original_transaction_ref AS ref, (r.amount * 10000)::bigint AS amount
      FROM transaction r
     WHERE r.institution_id = ANY($1::uuid[]) AND r.kind = 'refund'
  ),
  erased AS MATERIALIZED (
    SELECT institution_id, cardholder_token, bucket FROM erased_holdout_bucket
     WHERE institution_id = ANY($1::uuid[]) AND offer_id = $4::uuid
  ),
  per_cardholder AS (
    SELECT institution_id, cardholder_token, bool_or(proves) AS proven,
           coalesce(sum(amount) FILTER (WHERE in_window), 0) AS spend,
           coalesce(sum(amount) FILTER (WHERE NOT in_window), 0) AS pre_spend
      FROM (SELECT a.institution_id, a.cardholder_token, a.month > ${FIRST_MONTH} AND a.month < ${LAST_MONTH} AS proves,
                   NULL::boolean AS in_window, 0::bigint AS amount
              FROM cardholder_activity a
             WHERE a.institution_id = ANY($1::uuid[]) AND a.month BETWEEN ${FIRST_MONTH} AND ${LAST_MONTH}
               AND ${SHARD('a.cardholder_token')}
            UNION ALL
            SELECT institution_id, cardholder_token, true, in_window, amount FROM buys
            UNION ALL
            SELECT b.institution_id, b.cardholder_token, true, b.in_window, -r.amount
              FROM buys b JOIN refunds r ON r.institution_id = b.institution_id AND r.ref = b.transaction_ref
            UNION ALL
            SELECT b.institution_id, b.cardholder_token, true, b.in_window, -r.amount
              FROM buys b JOIN refunds r ON r.institution_id = b.institution_id AND r.ref = b.authorization_ref
             WHERE b.authorization_ref IS NOT NULL) x
     GROUP BY institution_id, cardholder_token
  ),
  assigned AS (
    SELECT ${holdoutMacSql('k.inner_pad', 'k.outer_pad', '$4::text', 'e.cardholder_token')} AS mac,
           h.bucket AS kept_bucket, e.spend, e.pre_spend
      FROM per_cardholder e
      JOIN keys k ON k.institution_id = e.institution_id
      LEFT JOIN erased h ON h.institution_id = e.institution_id AND h.cardholder_token = e.cardholder_token
     WHERE e.proven OR EXISTS (
             SELECT 1 FROM transaction t
              WHERE t.institution_id = e.institution_id AND t.cardholder_token = e.cardholder_token
                AND ${PURCHASES} AND t.transacted_at >= $7 AND t.transacted_at < $9)
    OFFSET 0
  )
  SELECT coalesce(kept_bucket, ${holdoutBucketSql('mac')}) < $10 AS holdout,
         count(*)::int AS cardholders,
         (count(*) FILTER (WHERE spend > 0))::int AS buyers,
         sum(spend)::text AS spend_e4,
         sum(spend * spend)::text AS squares_e8,
         (count(*) FILTER (WHERE pre_spend > 0))::int AS pre_buyers,
         sum(pre_spend)::text AS pre_spend_e4
    FROM assigned
   GROUP BY 1`;

/**
 * Memory for each hash of the report's statement (the sums of ~1M cardholders take ~100 MB): a
 * report is computed at most once a minute per (offer, institutions) and api process.
 */
const REPORT_WORK_MEM = '128MB';

/**
 * Statements a report runs at once, each over its share of the cardholders: PostgreSQL's own
 * parallel workers split the scans but not the per-cardholder sums and HMACs, which are most of
 * the work and run in one process after the workers' rows are gathered.
 */
const REPORT_SHARDS = 2;

/** The lift report's reads (docs/lift.md). */
@Injectable()
export class LiftRepository {
  constructor(private readonly db: DataSource) {}

  /** The offer and the institutions it is offered to (offer_target, or every institution). */
  async offer(offerId: string): Promise<LiftOfferRow | undefined> {
    const [row]: LiftOfferRow[] = await this.db.query(
      `SELECT o.id, o.merchant_id, o.currency, o.starts_at, o.expires_at, o.holdout_bps,
              CASE WHEN o.targeted
                   THEN ARRAY(SELECT t.institution_id FROM offer_target t WHERE t.offer_id = o.id ORDER BY 1)
                   ELSE ARRAY(SELECT i.id FROM institution i ORDER BY 1) END AS institution_ids
         FROM offer o WHERE o.id = $1`,
      [offerId],
    );
    return row;
  }

  /**
   * GROUPS_SQL once per shard (REPORT_SHARDS), the shards at once on their own connections, each
   * in a read-only transaction on one snapshot (exported by the first, as pg_dump's parallel jobs
   * share theirs): the figures of every shard are of the same moment. A shard's work_mem
   * (REPORT_WORK_MEM) lets its cardholder sums and the refunds be hashed in memory rather than
   * spilled or sorted to disk. Every row returned is one shard's group: the caller sums them.
   */
  groups(
    offer: LiftOfferRow,
    keys: HmacPads[],
    window: { preFrom: Date; from: Date; to: Date },
  ): Promise<GroupRow[]> {
    const params = [
      keys.map((k) => k.institutionId),
      keys.map((k) => k.inner),
      keys.map((k) => k.outer),
      offer.id.toLowerCase(),
      offer.merchant_id,
      offer.currency,
      window.preFrom,
      window.from,
      window.to,
      offer.holdout_bps,
      REPORT_SHARDS,
    ];
    const prepare = async (m: EntityManager) => {
      await m.query(`SET TRANSACTION READ ONLY`);
      await m.query(`SET LOCAL work_mem = '${REPORT_WORK_MEM}'`);
      // The refunds join: CTE row counts are guesses, and a merge join sorts every purchase.
      await m.query(`SET LOCAL enable_mergejoin = off`);
      // A shard's filter is an expression the planner guesses keeps 0.5 % of the rows (it keeps
      // half): it would sort the cardholders' 2.5 M rows to group them (5 s) rather than hash them.
      await m.query(`SET LOCAL enable_sort = off`);
    };
    const shard = (m: EntityManager, k: number): Promise<GroupRow[]> =>
      m.query(GROUPS_SQL, [...params, k]);
    return this.db.transaction('REPEATABLE READ', async (first) => {
      await prepare(first);
      const [{ snapshot }] = await first.query(`SELECT pg_export_snapshot() AS snapshot`);
      if (!/^[0-9A-F-]+$/i.test(snapshot)) throw new Error(`unexpected snapshot id ${snapshot}`);
      const rest = Array.from({ length: REPORT_SHARDS - 1 }, (_, i) =>
        this.db.transaction('REPEATABLE READ', async (m) => {
          await m.query(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
          await prepare(m);
          return shard(m, i + 1);
        }),
      );
      return (await Promise.all([shard(first, 0), ...rest])).flat();
    });
  }

  /** Rewards of the offer's redemptions created in the window, reversed ones excluded (minor units). */
  async rewards(
    offerId: string,
    institutionIds: string[],
    window: { from: Date; to: Date },
  ): Promise<{ payout: string; funded: string }> {
    const [row] = await this.db.query(
      `SELECT coalesce(sum(institution_payout_amount), 0)::text AS payout,
              coalesce(sum(merchant_funded_amount), 0)::text AS funded
         FROM redemption
        WHERE offer_id = $1 AND institution_id = ANY($2::uuid[])
          AND created_at >= $3 AND created_at < $4 AND status <> 'reversed'`,
      [offerId, institutionIds, window.from, window.to],
    );
    return row;
  }

  /**
   * The offers of an institution that have started (live or past; drafts and offers not started
   * are not shown), newest first: offer_created_idx.
   */
  offersPage(
    institutionId: string,
    after: KeysetAfter | null,
    limit: number,
  ): Promise<PortalOfferRow[]> {
    const page = keysetSql({ alias: 'o', after, limit, params: [institutionId] });
    return this.db.query(
      `SELECT o.id, ${cursorColumn('o')}, o.status, o.currency, o.starts_at, o.expires_at, o.holdout_bps,
              o.created_at, m.name AS merchant_name,
              coalesce(o.translations->'en'->>'title',
                       (SELECT t.value->>'title' FROM jsonb_each(o.translations) t ORDER BY t.key LIMIT 1)) AS title
         FROM offer o JOIN merchant m ON m.id = o.merchant_id
        WHERE o.status <> 'draft' AND o.starts_at <= now()
          AND (NOT o.targeted OR EXISTS (SELECT 1 FROM offer_target t WHERE t.offer_id = o.id AND t.institution_id = $1))
          ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }

  /**
   * Within `m`'s transaction: the institution's holdout-key reveal, if it happened, after taking
   * a lock that serializes reveals of one institution (so two at once cannot both succeed).
   */
  async lockedReveal(
    institutionId: string,
    m: EntityManager,
  ): Promise<{ actor: string; created_at: Date } | undefined> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('holdout-key:' || $1::text, 0))`, [
      institutionId,
    ]);
    return this.reveal(institutionId, m);
  }

  /** The institution's holdout-key reveal (security_event), if any. */
  async reveal(
    institutionId: string,
    m: EntityManager = this.db.manager,
  ): Promise<{ actor: string; created_at: Date } | undefined> {
    const [row] = await m.query(
      `SELECT actor, created_at FROM security_event
        WHERE institution_id = $1 AND type = 'holdout_key.revealed' ORDER BY created_at LIMIT 1`,
      [institutionId],
    );
    return row;
  }
}
