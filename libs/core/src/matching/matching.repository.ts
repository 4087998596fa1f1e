import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { prepared, returnedRows } from '@app/db';
import { partitionOf, PURCHASE_KINDS } from '@app/domain';
import type {
  RedemptionSource,
  LifecycleKind,
  MatchingEnrollment,
  NewRedemption,
  OfferTerms,
  TransactionEvent,
} from '@app/domain';
import { OFFER_BUDGET_JOIN, OFFER_TERMS_COLUMNS, OfferRow, toOfferTerms } from './offer-row';
import { chainRefundedSql } from './card-lifecycle.repository';
import { REVERSAL_ROW_COLUMNS, ReversalRow } from './reversal-row';
import {
  keysOfIds,
  keysOfRefs,
  refundsSumSql,
  resolvedMerchantSql,
  withKeyed,
} from '../ingestion/transaction-store';

/** A transaction of the chunk as claimed, with what matching needs beside it. */
export interface ClaimedRow {
  id: string;
  institution_id: string;
  /**
   * The partition key, exact (UTC, microseconds, ISO 8601): the final statuses are written by
   * primary key (setStatuses).
   */
  received_at: string;
  transaction_ref: string;
  cardholder_token: string;
  kind: 'purchase' | 'refund' | LifecycleKind;
  amount: string;
  currency: string | null;
  transacted_at: Date;
  original_transaction_ref: string | null;
  merchant_id: string | null;
  /** Sum of the refunds stored for this purchase (a refund may arrive before its purchase). */
  refunded: string;
  service_share_rate: string | null;
  network: string | null;
  channel: string | null;
  time_zone: string | null;
  now: Date;
  /** Set by the card lifecycle on a further clearing of a chain cleared before: what it adds. */
  added_to_chain?: string;
  /** Set false by the card lifecycle: counts toward goals, earns nothing (a goal reward stands). */
  rewardable?: boolean;
}

export type { ReversalRow } from './reversal-row';

/**
 * The sum of the refunds stored for a purchase, 0 when there are none (numeric): a refund names its
 * purchase by (institution_id, original_transaction_ref), found through the refunds' keys. Every
 * statement that nets a purchase uses this one, so the rule cannot drift between matching,
 * reversal and the simulation.
 */
export const refundedSumSql = (institutionId: string, transactionRef: string) =>
  refundsSumSql(institutionId, `= ${transactionRef}`);

/**
 * The record a refund stands for (docs/transactions.md), from `t`, the record it names (same
 * institution, transaction_ref = original_transaction_ref): a purchase stands for itself; a card
 * chain's clearing or authorization for the chain's rewarded record (the one whose redemption is
 * live), or for the named record when the chain holds none. `chainJoin` joins the chain as `c`
 * (none for a purchase, or a clearing that names no authorization). Matching
 * (purchasesOfRefunds) and simulate read refunds through it alike.
 */
export const REFUND_ORIGINAL = {
  kinds: `t.kind IN ('purchase', 'authorization', 'clearing')`,
  chainJoin: `LEFT JOIN card_chain c ON t.kind <> 'purchase' AND c.institution_id = t.institution_id
              AND c.authorization_ref = CASE WHEN t.kind = 'authorization' THEN t.transaction_ref ELSE t.original_transaction_ref END`,
  id: `COALESCE(c.rewarded_transaction_id, t.id)`,
};

/**
 * The rows matching evaluates, from `source` (alias t: transaction's columns), with what matching
 * needs beside them, one statement whichever entry point reads them (MatchingRepository claim,
 * stored and eventRow): merchant resolution (a sender-resolved merchant_id that exists, else the
 * identifier through merchant_identifier's unique (type, value)), the refunds already stored for a
 * purchase (through the refunds' keys) and the program's service share rate and time zone.
 */
const merchant = resolvedMerchantSql('t');
const rowsSql = (source: string, extra = { columns: '', joins: '' }) => `
  SELECT t.id, t.institution_id, to_char(t.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS received_at, t.transaction_ref, t.cardholder_token, t.kind, t.amount::text AS amount, t.currency,
         t.transacted_at, t.original_transaction_ref, ${merchant.id} AS merchant_id,
         CASE WHEN t.kind = 'purchase' THEN ${refundedSumSql('t.institution_id', 't.transaction_ref')} ELSE 0 END::text
           AS refunded,
         p.service_share_rate::text AS service_share_rate,
         t.network, t.channel, p.time_zone, now() AS now${extra.columns}
    FROM ${source}
    ${merchant.joins}
    LEFT JOIN program p ON p.institution_id = t.institution_id${extra.joins}
   ORDER BY t.id`;

/**
 * Claims the chunk's rows. `received` only, so a second run of the same job (or an overlapping
 * relay job) finds nothing left; SKIP LOCKED, so two runs never wait for each other on these rows.
 * Rows are reached by primary key, each through its key.
 */
const CLAIM_SQL = prepared(
  `${withKeyed(keysOfIds(), {
    where: `AND x.status = 'received'`,
    lock: 'FOR NO KEY UPDATE SKIP LOCKED',
  })} ${rowsSql('t')}`,
);

/** One stored transaction, whatever its status, locked (FOR UPDATE: the claims' re-run waits for a chunk holding it). */
const STORED_SQL = prepared(
  `${withKeyed(`(SELECT * FROM transaction_key WHERE transaction_id = $1::uuid) k`, {
    lock: 'FOR UPDATE',
  })} ${rowsSql('t', { columns: ', t.status', joins: '' })}`,
);

/** A transaction event that is not stored (simulate), read as matching would read it once stored. */
const EVENT_SQL = rowsSql(
  `(SELECT $1::uuid AS id, $2::uuid AS institution_id, now() AS received_at, $3::text AS transaction_ref, $4::text AS cardholder_token,
           $5::text AS kind, $6::numeric AS amount, $7::text AS currency, $8::timestamptz AS transacted_at,
           $9::text AS original_transaction_ref, $10::uuid AS merchant_id, $11::text AS merchant_identifier_type,
           $12::text AS merchant_identifier, $13::text AS network, $14::text AS channel) t`,
  {
    columns: ', rm.name AS merchant_name',
    joins: `\n    LEFT JOIN merchant rm ON rm.id = ${merchant.id}`,
  },
);

/** FOR NO KEY UPDATE when the pipeline writes; nothing in report mode (simulate takes no lock). */
const lockClause = (lock: boolean) => (lock ? 'FOR NO KEY UPDATE' : '');

/**
 * The statements of chunk matching, each set-based (one statement per chunk whatever its size),
 * all run inside the caller's transaction `m`. Rows that are changed are locked in id order, so
 * concurrent chunks cannot deadlock.
 */
@Injectable()
export class MatchingRepository {
  claim(m: EntityManager, ids: readonly string[]): Promise<ClaimedRow[]> {
    return m.query(CLAIM_SQL, [ids]);
  }

  /** One stored transaction, whatever its status, taken FOR UPDATE; undefined when unknown. */
  async stored(
    m: EntityManager,
    id: string,
  ): Promise<(ClaimedRow & { status: string }) | undefined> {
    const rows: (ClaimedRow & { status: string })[] = await m.query(STORED_SQL, [id]);
    return rows[0];
  }

  /**
   * The live redemption of a stored record, or of the card chain it belongs to (its rewarded
   * record's), or null: such a record is already rewarded (a chain holds at most one).
   */
  async liveRedemptionOfRecord(
    m: EntityManager,
    transactionId: string,
    liveStatuses: readonly string[],
  ): Promise<string | null> {
    const rows: { id: string }[] = await m.query(
      prepared(`${withKeyed(`(SELECT * FROM transaction_key WHERE transaction_id = $1::uuid) k`)}
       SELECT r.id FROM t
         LEFT JOIN card_chain c ON t.kind IN ('authorization', 'clearing', 'authorization_reversal')
              AND c.institution_id = t.institution_id
              AND c.authorization_ref = CASE WHEN t.kind = 'authorization' THEN t.transaction_ref ELSE t.original_transaction_ref END
         JOIN redemption r ON r.transaction_id IN (t.id, c.rewarded_transaction_id) AND r.status = ANY($2::text[])
        LIMIT 1`),
      [transactionId, liveStatuses],
    );
    return rows[0]?.id ?? null;
  }

  /** An event as matching would read it once stored, under `id` (simulate); no row is read or locked. */
  async eventRow(
    m: EntityManager,
    id: string,
    institutionId: string,
    e: TransactionEvent,
  ): Promise<ClaimedRow & { merchant_name: string | null }> {
    const rows: (ClaimedRow & { merchant_name: string | null })[] = await m.query(EVENT_SQL, [
      id,
      institutionId,
      e.transactionRef,
      e.cardholderToken,
      e.kind,
      e.amount,
      e.currency,
      e.transactedAt,
      e.originalTransactionRef,
      e.merchantId,
      e.merchantIdentifierType,
      e.merchantIdentifier,
      e.network,
      e.channel ?? null,
    ]);
    return rows[0];
  }

  /**
   * The purchases the refunds name (same institution, transaction_ref = original_transaction_ref).
   * A refund may name a card chain's clearing or authorization (docs/transactions.md): it then
   * stands for the chain's rewarded record (the one whose redemption is live), or for the named
   * record when the chain holds none.
   */
  purchasesOfRefunds(
    m: EntityManager,
    refunds: ClaimedRow[],
  ): Promise<{ id: string; institution_id: string; transaction_ref: string }[]> {
    return m.query(
      prepared(`${withKeyed(keysOfRefs('unnest($1::uuid[], $2::text[]) AS u(institution_id, transaction_ref)'))}
       SELECT ${REFUND_ORIGINAL.id} AS id, t.institution_id, t.transaction_ref
         FROM t
         ${REFUND_ORIGINAL.chainJoin}
        WHERE ${REFUND_ORIGINAL.kinds}`),
      [refunds.map((r) => r.institution_id), refunds.map((r) => r.original_transaction_ref)],
    );
  }

  /**
   * Locks purchases outside the chunk; those another run holds are skipped (not returned). Report
   * mode (`lock` false) reads them all.
   */
  async lockPurchases(
    m: EntityManager,
    ids: string[],
    lock = true,
  ): Promise<{ id: string; status: string }[]> {
    if (!ids.length) return [];
    return m.query(
      prepared(`${withKeyed(keysOfIds(), lock ? { lock: 'FOR NO KEY UPDATE SKIP LOCKED' } : {})}
       SELECT t.id, t.status FROM t ORDER BY t.id`),
      [ids],
    );
  }

  /**
   * Live redemptions of these purchases, with the purchase's net amount inputs and the offer's
   * min_spend (with the purchase's time and the offer's terms_from: an earlier version's may apply). A goal round's redemption is not among them: its refunds follow the goal's rule
   * (GoalProgressService). A card chain's rewarded record nets its cleared amount of the refunds
   * naming either of the chain's refs.
   */
  liveRedemptionsOf(
    m: EntityManager,
    purchaseIds: string[],
    reversibleStatuses: readonly string[],
  ): Promise<ReversalRow[]> {
    return m.query(
      prepared(`${withKeyed(keysOfIds())}
       SELECT t.id AS transaction_id, COALESCE(c.cleared_amount, t.amount)::text AS amount,
              (CASE WHEN c.institution_id IS NULL THEN ${refundedSumSql('t.institution_id', 't.transaction_ref')}
                    ELSE ${chainRefundedSql} END)::text AS refunded,
              ${REVERSAL_ROW_COLUMNS}, o.min_spend, t.transacted_at, o.terms_from
         FROM t
         JOIN redemption r ON r.transaction_id = t.id
         JOIN offer o ON o.id = r.offer_id
         LEFT JOIN card_chain c ON c.rewarded_transaction_id = t.id
        WHERE r.status = ANY($2::text[]) AND r.goal_round IS NULL`),
      [purchaseIds, reversibleStatuses],
    );
  }

  /** Locks the settlement entries of these redemptions (the financial record decides a reversal). */
  lockSettlementEntries(
    m: EntityManager,
    redemptionIds: string[],
    lock = true,
  ): Promise<{ redemption_id: string; status: string; institution_payout_amount: string }[]> {
    return m.query(
      prepared(`SELECT redemption_id, status, institution_payout_amount FROM settlement_entry
        WHERE redemption_id = ANY($1::uuid[]) ORDER BY redemption_id ${lockClause(lock)}`),
      [redemptionIds],
    );
  }

  /**
   * Active enrollments of each (institution, cardholder) in offers of the purchase's merchant: one
   * probe of cardholder_offer_unique (institution_id, cardholder_token, …) per key. The LIMIT keeps
   * the lateral subquery from being flattened into a hash join that reads the whole table.
   */
  candidateEnrollments(
    m: EntityManager,
    keys: { institution_id: string; cardholder_token: string; merchant_id: string }[],
  ): Promise<
    {
      id: string;
      offer_id: string;
      institution_id: string;
      cardholder_token: string;
      merchant_id: string;
    }[]
  > {
    return m.query(
      prepared(`SELECT c.id, c.offer_id, k.institution_id, k.cardholder_token, k.merchant_id
         FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS k(institution_id, cardholder_token, merchant_id)
         CROSS JOIN LATERAL (
           SELECT co.id, co.offer_id
             FROM cardholder_offer co JOIN offer o ON o.id = co.offer_id
            WHERE co.institution_id = k.institution_id AND co.cardholder_token = k.cardholder_token
              AND co.status = 'active' AND o.merchant_id = k.merchant_id
            LIMIT 1000) c`),
      [
        keys.map((p) => p.institution_id),
        keys.map((p) => p.cardholder_token),
        keys.map((p) => p.merchant_id),
      ],
    );
  }

  /**
   * Audiences: per purchase, the cardholder's latest purchase at its merchant strictly before it,
   * one probe of transaction_cardholder_idx (institution_id, cardholder_token, merchant_id) per
   * purchase, in one statement. Called only for purchases that have a candidate offer with a
   * `new` or `lapsed` audience.
   */
  lastPurchasesBefore(
    m: EntityManager,
    keys: {
      id: string;
      institution_id: string;
      cardholder_token: string;
      merchant_id: string;
      transacted_at: Date;
    }[],
  ): Promise<{ id: string; last: Date | null }[]> {
    if (!keys.length) return Promise.resolve([]);
    return m.query(
      prepared(`SELECT k.id, (SELECT max(t.transacted_at) FROM transaction t
                      WHERE t.institution_id = k.institution_id AND t.cardholder_token = k.cardholder_token
                        AND t.merchant_id = k.merchant_id AND t.kind = ANY($6::text[])
                        AND t.transacted_at < k.transacted_at) AS last
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::timestamptz[])
           AS k(id, institution_id, cardholder_token, merchant_id, transacted_at)`),
      [
        keys.map((k) => k.id),
        keys.map((k) => k.institution_id),
        keys.map((k) => k.cardholder_token),
        keys.map((k) => k.merchant_id),
        keys.map((k) => k.transacted_at),
        PURCHASE_KINDS,
      ],
    );
  }

  /**
   * The offers this chunk may change. Offers with a budget have their counter (offer_budget) locked
   * (in id order) and read fresh: their remaining budget decides allocations; the offer row, a
   * reference table's, is only read. Offers without a budget are read without a
   * lock (nothing about them depends on other chunks); their spend counter is added to last,
   * just before commit, so the hot rows every chunk touches stay locked only for an instant.
   */
  async lockOffers(m: EntityManager, ids: string[], lock = true): Promise<Map<string, OfferTerms>> {
    if (!ids.length) return new Map();
    const unlimited: OfferRow[] = await m.query(
      prepared(
        `SELECT ${OFFER_TERMS_COLUMNS} FROM offer o ${OFFER_BUDGET_JOIN} WHERE o.id = ANY($1::uuid[]) AND o.budget_total IS NULL`,
      ),
      [ids],
    );
    const limited: OfferRow[] = await m.query(
      prepared(`SELECT ${OFFER_TERMS_COLUMNS} FROM offer o ${OFFER_BUDGET_JOIN}
        WHERE o.id = ANY($1::uuid[]) AND o.budget_total IS NOT NULL ORDER BY o.id ${lockClause(lock)}${lock ? ' OF b' : ''}`),
      [ids],
    );
    return new Map([...unlimited, ...limited].map((r) => [r.id, toOfferTerms(r)]));
  }

  /** Locks the enrollments (id order) and reads them, with the open round of a goal offer. */
  async lockEnrollments(
    m: EntityManager,
    ids: string[],
    lock = true,
  ): Promise<Map<string, MatchingEnrollment>> {
    if (!ids.length) return new Map();
    const rows: {
      id: string;
      offer_id: string;
      status: string;
      redemption_count: number;
      added_at: Date;
      goal_round: number;
      goal_progress: string;
      goal_spend: string;
    }[] = await m.query(
      prepared(`SELECT id, offer_id, status, redemption_count, added_at, goal_round, goal_progress, goal_spend
         FROM cardholder_offer
        WHERE id = ANY($1::uuid[]) ORDER BY id ${lockClause(lock)}`),
      [ids],
    );
    return new Map(
      rows.map((r) => [
        r.id,
        {
          id: r.id,
          offerId: r.offer_id,
          status: r.status,
          redemptionCount: r.redemption_count,
          addedAt: r.added_at,
          goal: {
            round: r.goal_round,
            progress: Number(r.goal_progress),
            spend: Number(r.goal_spend),
          },
        },
      ]),
    );
  }

  /**
   * Reserves (or gives back) budget: the merchant-funded amount is added to the offer's counter
   * (offer_budget.budget_used, kept apart from the offer: docs/scaling.md, step 5). The WHERE
   * clause is the atomic guard: a reservation that would take budget_used past budget_total
   * updates nothing, and the whole chunk rolls back (it cannot happen while the budgeted rows are
   * locked as above; the guard is the last line). Rows are locked in id order first, so chunks
   * updating the same offers never deadlock.
   */
  async applyBudget(m: EntityManager, deltas: Map<string, number>): Promise<void> {
    const changed = [...deltas].filter(([, d]) => d !== 0);
    if (!changed.length) return;
    const rows = returnedRows<{ id: string }>(
      await m.query(
        prepared(`WITH locked AS (SELECT offer_id FROM offer_budget WHERE offer_id = ANY($1::uuid[]) ORDER BY offer_id FOR NO KEY UPDATE)
         UPDATE offer_budget b SET budget_used = b.budget_used + d.delta
           FROM unnest($1::uuid[], $2::bigint[]) AS d(id, delta), locked, offer o
          WHERE b.offer_id = d.id AND locked.offer_id = d.id AND o.id = d.id
            AND b.budget_used + d.delta >= 0
            AND (d.delta <= 0 OR o.budget_total IS NULL OR b.budget_used + d.delta <= o.budget_total)
        RETURNING b.offer_id AS id`),
        [changed.map(([id]) => id), changed.map(([, d]) => d)],
      ),
    );
    if (rows.length !== changed.length)
      throw new Error('offer budget changed under the chunk; retrying');
  }

  async applyEnrollments(
    m: EntityManager,
    updates: Map<string, { delta: number; status: string }>,
  ): Promise<void> {
    if (!updates.size) return;
    const list = [...updates];
    await m.query(
      prepared(`UPDATE cardholder_offer c SET redemption_count = c.redemption_count + d.delta, status = d.status, updated_at = now()
         FROM unnest($1::uuid[], $2::int[], $3::text[]) AS d(id, delta, status)
        WHERE c.id = d.id`),
      [list.map(([id]) => id), list.map(([, u]) => u.delta), list.map(([, u]) => u.status)],
    );
  }

  /**
   * Redemptions and their settlement entries (pending), in one statement: the entry reads the ids
   * the redemption insert returns.
   */
  async insertRedemptions(
    m: EntityManager,
    rows: NewRedemption[],
    source: RedemptionSource = 'matching',
  ): Promise<void> {
    if (!rows.length) return;
    await m.query(
      prepared(`WITH d AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[],
                              $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::int[], $15::bigint[],
                              $16::text[], $18::timestamptz[])
           AS d(id, institution_id, transaction_id, cardholder_offer_id, offer_id, merchant_id, cardholder_token, currency,
                purchase_amount, cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount,
                goal_round, goal_target, transaction_ref, transacted_at)
       ), r AS (
         INSERT INTO redemption (id, institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency,
                                 purchase_amount, cashback_amount, merchant_funded_amount, service_revenue_amount,
                                 institution_payout_amount, goal_round, goal_target, transaction_ref, source, transacted_at)
         SELECT id, institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency, purchase_amount,
                cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount, goal_round, goal_target,
                transaction_ref, $17::text, transacted_at
           FROM d
         RETURNING id
       )
       INSERT INTO settlement_entry (redemption_id, institution_id, offer_id, merchant_id, currency, merchant_funded_amount,
                                     service_revenue_amount, institution_payout_amount)
       SELECT d.id, d.institution_id, d.offer_id, d.merchant_id, d.currency, d.merchant_funded_amount,
              d.service_revenue_amount, d.institution_payout_amount
         FROM d JOIN r ON r.id = d.id`),
      [
        rows.map((r) => r.id),
        rows.map((r) => r.institutionId),
        rows.map((r) => r.transactionId),
        rows.map((r) => r.enrollmentId),
        rows.map((r) => r.offerId),
        rows.map((r) => r.merchantId),
        rows.map((r) => r.cardholderToken),
        rows.map((r) => r.currency),
        rows.map((r) => r.purchase),
        rows.map((r) => r.cashback),
        rows.map((r) => r.merchantFunded),
        rows.map((r) => r.serviceRevenue),
        rows.map((r) => r.institutionPayout),
        rows.map((r) => r.goalRound),
        rows.map((r) => r.goalTarget),
        rows.map((r) => r.transactionRef),
        source,
        rows.map((r) => r.transactedAt),
      ],
    );
  }

  /**
   * Settlement entries and redemptions to `reversed`, guarded by the state machine's sources; the
   * redemption stores why (reversal_reason) and the record that caused it.
   */
  async markReversed(
    m: EntityManager,
    reversals: {
      redemptionId: string;
      clawback: number | null;
      reason: string;
      transactionRef: string | null;
    }[],
    from: readonly string[],
  ): Promise<void> {
    if (!reversals.length) return;
    const ids = reversals.map((r) => r.redemptionId);
    await m.query(
      prepared(`UPDATE settlement_entry e SET status = 'reversed', reversed_at = now(), clawback_amount = d.clawback
         FROM unnest($1::uuid[], $2::bigint[]) AS d(redemption_id, clawback)
        WHERE e.redemption_id = d.redemption_id AND e.status = ANY($3::text[])`),
      [ids, reversals.map((r) => r.clawback), from],
    );
    await m.query(
      prepared(`UPDATE redemption r SET status = 'reversed', reversed_at = now(), reversal_reason = d.reason,
              reversal_transaction_ref = d.ref
         FROM unnest($1::uuid[], $2::text[], $3::text[]) AS d(id, reason, ref)
        WHERE r.id = d.id AND r.status = ANY($4::text[])`),
      [ids, reversals.map((r) => r.reason), reversals.map((r) => r.transactionRef), from],
    );
  }

  /**
   * Final statuses; the resolved merchant is recorded (a sender's unknown merchant_id is kept as
   * sent). Only rows this run claimed (and still holds locked, as `received`) are in the list.
   */
  async setStatuses(
    m: EntityManager,
    rows: {
      id: string;
      institutionId: string;
      receivedAt: string;
      status: string;
      merchantId: string | null;
    }[],
  ): Promise<void> {
    if (!rows.length) return;
    // Each row by primary key. The rows' months also bound the statement as parameters, so the
    // planner prunes the other months before it plans (with two years of months, planning them
    // all took about 8 ms a call). Whole months, not the rows' own instants: a chunk's rows often
    // share one received_at, and a range that narrow, estimated at a row or so from statistics
    // that have not seen them, made the month the outer side of a nested loop that scanned the
    // 1,000 unnest rows once per row (a million comparisons, ~370 ms a chunk).
    const times = rows.map((r) => Date.parse(r.receivedAt));
    const from = partitionOf('transaction', new Date(Math.min(...times))).from;
    const to = partitionOf('transaction', new Date(Math.max(...times))).to;
    await m.query(
      prepared(`UPDATE transaction t SET status = d.status, merchant_id = COALESCE(d.merchant_id, t.merchant_id), processed_at = now()
         FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::text[], $5::uuid[])
                AS d(id, institution_id, received_at, status, merchant_id)
        WHERE t.institution_id = d.institution_id AND t.received_at = d.received_at AND t.id = d.id
          AND t.received_at >= $6::timestamptz AND t.received_at < $7::timestamptz`),
      [
        rows.map((r) => r.id),
        rows.map((r) => r.institutionId),
        rows.map((r) => r.receivedAt),
        rows.map((r) => r.status),
        rows.map((r) => r.merchantId),
        from,
        to,
      ],
    );
  }
}
