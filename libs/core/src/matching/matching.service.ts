import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { DataSource, EntityManager } from 'typeorm';
import { returnedRows } from '@app/db';
import {
  allocate,
  isSettlementStatus,
  MatchingEnrollment,
  netAmount,
  OfferTerms,
  PurchaseToMatch,
  RedemptionFacts,
  refundReverses,
  reversal,
  sourcesOf,
} from '@app/domain';
import { WebhookEvents } from '../webhooks/webhook-events';
import { OFFER_TERMS_COLUMNS, OfferRow, toOfferTerms } from './offer-row';

export interface MatchStats {
  /** Ids asked for. */
  requested: number;
  /** Rows this run took (still `received`, not locked by another run). */
  claimed: number;
  /** Purchases by outcome. */
  matched: number;
  unmatched: number;
  merchantUnresolved: number;
  refunds: number;
  reversed: number;
  /** Refunds left `received` because their purchase was being processed by another run. */
  deferred: number;
  /** Milliseconds per stage (read: claim and lookups; locks: waiting for and reading locked offers and enrollments; write; commit). */
  ms?: { read: number; locks: number; write: number; commit: number };
}

interface ClaimedRow {
  id: string;
  institution_id: string;
  transaction_ref: string;
  cardholder_token: string;
  kind: 'purchase' | 'refund';
  amount: string;
  currency: string | null;
  transacted_at: Date;
  original_transaction_ref: string | null;
  merchant_id: string | null;
  /** Sum of the refunds stored for this purchase (a refund may arrive before its purchase). */
  refunded: string;
  service_share_rate: string | null;
  now: Date;
}

interface EnrollmentRow {
  id: string;
  offer_id: string;
  status: string;
  redemption_count: number;
  added_at: Date;
}

interface ReversalRow {
  transaction_id: string;
  amount: string;
  refunded: string;
  redemption_id: string;
  institution_id: string;
  offer_id: string;
  cardholder_offer_id: string;
  cardholder_token: string;
  currency: string;
  merchant_funded_amount: string;
  institution_payout_amount: string;
  min_spend: string;
}

interface Reversal {
  row: ReversalRow;
  clawback: number | null;
}

const DEFAULT_SHARE_RATE = '0.5';
const k2 = (a: string, b: string) => `${a}\u0000${b}`;
const k3 = (a: string, b: string, c: string) => `${a}\u0000${b}\u0000${c}`;

/**
 * Claims the chunk's rows. `received` only, so a second run of the same job (or an overlapping
 * relay job) finds nothing left; SKIP LOCKED, so two runs never wait for each other on these rows.
 * Rows are reached by primary key (the join on unnest), never through the partial index of
 * received rows, which holds the whole backlog (and its dead entries until vacuum). The same
 * statement reads the refunds already stored for each purchase (partial index of refunds) and the
 * program's service share rate.
 * Merchant resolution in the same statement: a sender-resolved merchant_id that exists, else the
 * identifier through merchant_identifier's unique (type, value).
 */
const CLAIM_SQL = `
  SELECT t.id, t.institution_id, t.transaction_ref, t.cardholder_token, t.kind, t.amount::text AS amount, t.currency,
         t.transacted_at, t.original_transaction_ref, COALESCE(m.id, mi.merchant_id) AS merchant_id,
         COALESCE(r.total, 0)::text AS refunded, p.service_share_rate::text AS service_share_rate, now() AS now
    FROM unnest($1::uuid[]) AS ids(id)
    CROSS JOIN LATERAL (
      SELECT * FROM transaction x WHERE x.id = ids.id AND x.status = 'received' FOR NO KEY UPDATE SKIP LOCKED
    ) t
    LEFT JOIN merchant m ON m.id = t.merchant_id
    LEFT JOIN merchant_identifier mi ON mi.type = t.merchant_identifier_type AND mi.value = t.merchant_identifier
    LEFT JOIN program p ON p.institution_id = t.institution_id
    LEFT JOIN LATERAL (
      SELECT sum(f.amount) AS total FROM transaction f
       WHERE t.kind = 'purchase' AND f.kind = 'refund'
         AND f.institution_id = t.institution_id AND f.original_transaction_ref = t.transaction_ref
    ) r ON true
   ORDER BY t.id`;

/**
 * Set-based matching of one chunk of transactions (DESIGN section 4), in one database
 * transaction: a handful of statements per chunk whatever its size, never a statement per row.
 *
 * 1. Claim the rows (above).
 * 2. Refunds: find their purchases; for purchases already matched, decide reversal on the net
 *    amount (purchase minus all its refunds) against the offer's min_spend.
 * 3. Purchases: net of refunds already stored; candidate enrollments of the cardholder at the
 *    resolved merchant; lock the budgeted offers and the enrollments (in id order, so concurrent
 *    chunks cannot deadlock) and read their current state; allocate with the pure rules of libs/domain
 *    (each purchase takes its best qualifying offer; budget and per-cardholder limits are spent in
 *    transacted_at order).
 * 4. Write: enrollment counts, redemptions + settlement entries (pending) + `redemption.completed`
 *    deliveries, reversals + `redemption.reversed` deliveries, the transactions' final statuses,
 *    and last the budget, with a guarded UPDATE (never above budget_total: the last line should
 *    the locking ever be bypassed).
 *
 * Rerunning a chunk changes nothing (its rows are no longer `received`); the unique constraints
 * on redemption(transaction_id), settlement_entry(redemption_id) and
 * webhook_delivery(redemption_id, event) are the last line. Ids not in this database are ignored.
 */
@Injectable()
export class MatchingService {
  private readonly logger = new Logger('Matching');

  constructor(
    private readonly db: DataSource,
    private readonly webhooks: WebhookEvents,
  ) {}

  async matchChunk(ids: readonly string[]): Promise<MatchStats> {
    const stats: MatchStats = {
      requested: ids.length,
      claimed: 0,
      matched: 0,
      unmatched: 0,
      merchantUnresolved: 0,
      refunds: 0,
      reversed: 0,
      deferred: 0,
    };
    if (!ids.length) return stats;
    const t0 = performance.now();
    let t1 = t0;
    let t2 = t0;
    let t3 = t0;
    await this.db.transaction(async (m) => {
      const claimed: ClaimedRow[] = await m.query(CLAIM_SQL, [ids]);
      stats.claimed = claimed.length;
      if (!claimed.length) return;
      const now = claimed[0].now;
      const statuses = new Map<string, string>();
      const purchases = claimed.filter((r) => r.kind === 'purchase');
      const refunds = claimed.filter((r) => r.kind === 'refund');
      stats.refunds = refunds.length;

      const reversals = refunds.length
        ? await this.planReversals(m, refunds, purchases, statuses, stats)
        : [];

      for (const p of purchases) if (!p.merchant_id) statuses.set(p.id, 'merchant_unresolved');
      const resolved = purchases.filter((p) => p.merchant_id);
      const candidates = await this.candidates(m, resolved);

      // Lock the budgeted offers and the enrollments this chunk may change, in id order.
      const offerIds = new Set<string>(reversals.map((r) => r.row.offer_id));
      const enrollmentIds = new Set<string>(reversals.map((r) => r.row.cardholder_offer_id));
      for (const c of candidates.values())
        for (const e of c) {
          offerIds.add(e.offerId);
          enrollmentIds.add(e.id);
        }
      t1 = performance.now();
      const offers = await this.lockOffers(m, [...offerIds]);
      const enrollments = await this.lockEnrollments(m, [...enrollmentIds]);
      t2 = performance.now();

      // Reversals first: they give back budget and a redemption of the enrollment.
      const budgetDeltas = new Map<string, number>();
      const enrollmentUpdates = new Map<string, { delta: number; status: string }>();
      for (const { row } of reversals) {
        const funded = Number(row.merchant_funded_amount);
        const offer = offers.get(row.offer_id)!;
        offers.set(offer.id, { ...offer, budgetUsed: Math.max(0, offer.budgetUsed - funded) });
        budgetDeltas.set(
          offer.id,
          (budgetDeltas.get(offer.id) ?? 0) - Math.min(funded, offer.budgetUsed),
        );
        const e = enrollments.get(row.cardholder_offer_id)!;
        const count = Math.max(0, e.redemptionCount - 1);
        const status =
          e.status === 'redeemed' && count < offer.maxRedemptionsPerCardholder
            ? 'active'
            : e.status;
        enrollments.set(e.id, { ...e, redemptionCount: count, status });
        const prev = enrollmentUpdates.get(e.id);
        enrollmentUpdates.set(e.id, {
          delta: (prev?.delta ?? 0) + (count - e.redemptionCount),
          status,
        });
      }

      const toMatch: PurchaseToMatch[] = [...resolved]
        .sort(
          (a, b) => a.transacted_at.getTime() - b.transacted_at.getTime() || (a.id < b.id ? -1 : 1),
        )
        .map((p) => ({
          transactionId: p.id,
          facts: {
            merchantId: p.merchant_id,
            amount: netAmount(p.amount, [p.refunded]),
            currency: p.currency?.trim() || null,
            transactedAt: p.transacted_at,
          },
          serviceShareRate: p.service_share_rate ?? DEFAULT_SHARE_RATE,
          enrollmentIds: (
            candidates.get(k3(p.institution_id, p.cardholder_token, p.merchant_id!)) ?? []
          ).map((e) => e.id),
        }));
      const allocation = allocate(toMatch, offers, enrollments);
      for (const [offerId, d] of allocation.budgetDeltas)
        budgetDeltas.set(offerId, (budgetDeltas.get(offerId) ?? 0) + d);
      for (const [id, u] of allocation.enrollmentUpdates) {
        const prev = enrollmentUpdates.get(id);
        enrollmentUpdates.set(id, { delta: (prev?.delta ?? 0) + u.delta, status: u.status });
      }
      for (const p of resolved) statuses.set(p.id, 'unmatched');
      for (const r of allocation.redemptions) statuses.set(r.transactionId, 'matched');

      await this.applyEnrollments(m, enrollmentUpdates);
      const byId = new Map(claimed.map((c) => [c.id, c]));
      await this.insertRedemptions(m, allocation.redemptions, byId, offers, now);
      await this.applyReversals(m, reversals, now);
      await this.setStatuses(m, claimed, statuses);
      await this.applyBudget(m, budgetDeltas);
      t3 = performance.now();

      stats.matched = allocation.redemptions.length;
      stats.reversed = reversals.length;
      stats.merchantUnresolved = purchases.length - resolved.length;
      stats.unmatched = resolved.length - allocation.redemptions.length;
    });
    if (stats.claimed) {
      const r = (x: number) => Math.round(x * 10) / 10;
      stats.ms = {
        read: r(t1 - t0),
        locks: r(t2 - t1),
        write: r(t3 - t2),
        commit: r(performance.now() - t3),
      };
    }
    return stats;
  }

  /**
   * Refunds of this chunk: each is linked to its purchase (same institution, transaction_ref =
   * original_transaction_ref). A purchase still `received` (in this chunk or not yet processed)
   * will net this refund itself when matched; a processed purchase is locked and its redemption,
   * if any, reversed when the net amount falls below min_spend. A purchase locked by another
   * run defers the refund (left `received`; the relay brings it back).
   */
  private async planReversals(
    m: EntityManager,
    refunds: ClaimedRow[],
    purchases: ClaimedRow[],
    statuses: Map<string, string>,
    stats: MatchStats,
  ): Promise<Reversal[]> {
    const originals: { id: string; institution_id: string; transaction_ref: string }[] =
      await m.query(
        `SELECT t.id, t.institution_id, t.transaction_ref
         FROM unnest($1::uuid[], $2::text[]) AS k(institution_id, ref)
         JOIN transaction t ON t.institution_id = k.institution_id AND t.transaction_ref = k.ref
        WHERE t.kind = 'purchase'`,
        [refunds.map((r) => r.institution_id), refunds.map((r) => r.original_transaction_ref)],
      );
    const originalByRef = new Map(
      originals.map((o) => [k2(o.institution_id, o.transaction_ref), o.id]),
    );
    const inChunk = new Set(purchases.map((p) => p.id));
    const outside = [
      ...new Set(originals.map((o) => o.id).filter((id) => !inChunk.has(id))),
    ].sort();
    const locked: { id: string; status: string }[] = outside.length
      ? await m.query(
          `SELECT id, status FROM transaction WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED`,
          [outside],
        )
      : [];
    const lockedStatus = new Map(locked.map((l) => [l.id, l.status]));
    const review = new Set<string>();
    for (const r of refunds) {
      const originalId = originalByRef.get(k2(r.institution_id, r.original_transaction_ref!));
      if (!originalId) statuses.set(r.id, 'unmatched');
      else if (inChunk.has(originalId)) statuses.set(r.id, 'matched');
      else if (!lockedStatus.has(originalId)) stats.deferred++;
      else {
        statuses.set(r.id, 'matched');
        if (lockedStatus.get(originalId) !== 'received') review.add(originalId);
      }
    }
    if (!review.size) return [];
    const rows: ReversalRow[] = await m.query(
      `SELECT t.id AS transaction_id, t.amount::text AS amount,
              (SELECT COALESCE(sum(x.amount), 0)::text FROM transaction x
                WHERE x.kind = 'refund' AND x.institution_id = t.institution_id AND x.original_transaction_ref = t.transaction_ref) AS refunded,
              r.id AS redemption_id, r.institution_id, r.offer_id, r.cardholder_offer_id, r.cardholder_token, r.currency,
              r.merchant_funded_amount, r.institution_payout_amount, o.min_spend
         FROM transaction t
         JOIN redemption r ON r.transaction_id = t.id
         JOIN offer o ON o.id = r.offer_id
        WHERE t.id = ANY($1::uuid[]) AND r.status = ANY($2::text[])`,
      [[...review], sourcesOf('reversed')],
    );
    const due = rows.filter((r) =>
      refundReverses(netAmount(r.amount, [r.refunded]), r.currency, Number(r.min_spend)),
    );
    if (!due.length) return [];
    // The financial record decides the transition (pending → reversed, settled → reversed + clawback).
    const entries: { redemption_id: string; status: string; institution_payout_amount: string }[] =
      await m.query(
        `SELECT redemption_id, status, institution_payout_amount FROM settlement_entry
        WHERE redemption_id = ANY($1::uuid[]) ORDER BY redemption_id FOR NO KEY UPDATE`,
        [due.map((r) => r.redemption_id)],
      );
    const entryOf = new Map(entries.map((e) => [e.redemption_id, e]));
    const out: Reversal[] = [];
    for (const row of due) {
      const e = entryOf.get(row.redemption_id);
      if (!e || !isSettlementStatus(e.status) || !sourcesOf('reversed').includes(e.status))
        continue;
      out.push({
        row,
        clawback: reversal(e.status, Number(e.institution_payout_amount)).clawbackAmount,
      });
    }
    return out;
  }

  /**
   * Active enrollments of each (institution, cardholder) in offers of the purchase's merchant: one
   * probe of cardholder_offer_unique (institution_id, cardholder_token, …) per key. The LIMIT keeps
   * the lateral subquery from being flattened into a hash join that reads the whole table.
   */
  private async candidates(
    m: EntityManager,
    purchases: ClaimedRow[],
  ): Promise<Map<string, { id: string; offerId: string }[]>> {
    const keys = new Map<string, ClaimedRow>();
    for (const p of purchases)
      keys.set(k3(p.institution_id, p.cardholder_token, p.merchant_id!), p);
    if (!keys.size) return new Map();
    const list = [...keys.values()];
    const rows: {
      id: string;
      offer_id: string;
      institution_id: string;
      cardholder_token: string;
      merchant_id: string;
    }[] = await m.query(
      `SELECT c.id, c.offer_id, k.institution_id, k.cardholder_token, k.merchant_id
         FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS k(institution_id, cardholder_token, merchant_id)
         CROSS JOIN LATERAL (
           SELECT co.id, co.offer_id
             FROM cardholder_offer co JOIN offer o ON o.id = co.offer_id
            WHERE co.institution_id = k.institution_id AND co.cardholder_token = k.cardholder_token
              AND co.status = 'active' AND o.merchant_id = k.merchant_id
            LIMIT 1000) c`,
      [
        list.map((p) => p.institution_id),
        list.map((p) => p.cardholder_token),
        list.map((p) => p.merchant_id),
      ],
    );
    const out = new Map<string, { id: string; offerId: string }[]>();
    for (const r of rows) {
      const k = k3(r.institution_id, r.cardholder_token, r.merchant_id);
      const arr = out.get(k) ?? [];
      arr.push({ id: r.id, offerId: r.offer_id });
      out.set(k, arr);
    }
    return out;
  }

  /**
   * The offers this chunk may change. Offers with a budget are locked (in id order) and read
   * fresh: their remaining budget decides allocations. Offers without a budget are read without a
   * lock (nothing about them depends on other chunks); their spend counter is added to last,
   * just before commit, so the hot rows every chunk touches stay locked only for an instant.
   */
  private async lockOffers(m: EntityManager, ids: string[]): Promise<Map<string, OfferTerms>> {
    if (!ids.length) return new Map();
    const unlimited: OfferRow[] = await m.query(
      `SELECT ${OFFER_TERMS_COLUMNS} FROM offer o WHERE o.id = ANY($1::uuid[]) AND o.budget_total IS NULL`,
      [ids],
    );
    const limited: OfferRow[] = await m.query(
      `SELECT ${OFFER_TERMS_COLUMNS} FROM offer o WHERE o.id = ANY($1::uuid[]) AND o.budget_total IS NOT NULL ORDER BY o.id FOR NO KEY UPDATE`,
      [ids],
    );
    return new Map([...unlimited, ...limited].map((r) => [r.id, toOfferTerms(r)]));
  }

  private async lockEnrollments(
    m: EntityManager,
    ids: string[],
  ): Promise<Map<string, MatchingEnrollment>> {
    if (!ids.length) return new Map();
    const rows: EnrollmentRow[] = await m.query(
      `SELECT id, offer_id, status, redemption_count, added_at FROM cardholder_offer
        WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`,
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
        },
      ]),
    );
  }

  /**
   * Reserves (or gives back) budget: the merchant-funded amount is added to budget_used. The WHERE
   * clause is the atomic guard: a reservation that would take budget_used past budget_total
   * updates nothing, and the whole chunk rolls back (it cannot happen while the budgeted rows are
   * locked as above; the guard is the last line). Rows are locked in id order first, so chunks
   * updating the same offers never deadlock.
   */
  private async applyBudget(m: EntityManager, deltas: Map<string, number>): Promise<void> {
    const changed = [...deltas].filter(([, d]) => d !== 0);
    if (!changed.length) return;
    const rows = returnedRows<{ id: string }>(
      await m.query(
        `WITH locked AS (SELECT id FROM offer WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE)
         UPDATE offer o SET budget_used = o.budget_used + d.delta
           FROM unnest($1::uuid[], $2::bigint[]) AS d(id, delta), locked
          WHERE o.id = d.id AND locked.id = d.id
            AND o.budget_used + d.delta >= 0
            AND (d.delta <= 0 OR o.budget_total IS NULL OR o.budget_used + d.delta <= o.budget_total)
        RETURNING o.id`,
        [changed.map(([id]) => id), changed.map(([, d]) => d)],
      ),
    );
    if (rows.length !== changed.length)
      throw new Error('offer budget changed under the chunk; retrying');
  }

  private async applyEnrollments(
    m: EntityManager,
    updates: Map<string, { delta: number; status: string }>,
  ): Promise<void> {
    if (!updates.size) return;
    const list = [...updates];
    await m.query(
      `UPDATE cardholder_offer c SET redemption_count = c.redemption_count + d.delta, status = d.status, updated_at = now()
         FROM unnest($1::uuid[], $2::int[], $3::text[]) AS d(id, delta, status)
        WHERE c.id = d.id`,
      [list.map(([id]) => id), list.map(([, u]) => u.delta), list.map(([, u]) => u.status)],
    );
  }

  /** Redemptions, their settlement entries (pending) and redemption.completed deliveries. */
  private async insertRedemptions(
    m: EntityManager,
    redemptions: ReturnType<typeof allocate>['redemptions'],
    claimed: Map<string, ClaimedRow>,
    offers: Map<string, OfferTerms>,
    now: Date,
  ): Promise<void> {
    if (!redemptions.length) return;
    const deliveries: RedemptionFacts[] = [];
    const cols = {
      id: [] as string[],
      institution: [] as string[],
      transaction: [] as string[],
      enrollment: [] as string[],
      offer: [] as string[],
      merchant: [] as string[],
      token: [] as string[],
      currency: [] as string[],
      purchase: [] as number[],
      cashback: [] as number[],
      funded: [] as number[],
      revenue: [] as number[],
      payout: [] as number[],
    };
    for (const r of redemptions) {
      const t = claimed.get(r.transactionId)!;
      const id = randomUUID();
      cols.id.push(id);
      cols.institution.push(t.institution_id);
      cols.transaction.push(t.id);
      cols.enrollment.push(r.enrollmentId);
      cols.offer.push(r.offerId);
      cols.merchant.push(offers.get(r.offerId)!.merchantId);
      cols.token.push(t.cardholder_token);
      cols.currency.push(r.reward.currency);
      cols.purchase.push(r.reward.purchaseAmount);
      cols.cashback.push(r.reward.cashback);
      cols.funded.push(r.reward.merchantFunded);
      cols.revenue.push(r.reward.serviceRevenue);
      cols.payout.push(r.reward.institutionPayout);
      deliveries.push({
        redemptionId: id,
        institutionId: t.institution_id,
        offerId: r.offerId,
        cardholderToken: t.cardholder_token,
        institutionPayoutMinor: r.reward.institutionPayout,
        currency: r.reward.currency,
      });
    }
    // One statement: the redemption and its settlement entry (which reads the ids the first insert
    // returns); then the redemption.completed deliveries, in the same transaction.
    await m.query(
      `WITH d AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[],
                              $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[])
           AS d(id, institution_id, transaction_id, cardholder_offer_id, offer_id, merchant_id, cardholder_token, currency,
                purchase_amount, cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount)
       ), r AS (
         INSERT INTO redemption (id, institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency,
                                 purchase_amount, cashback_amount, merchant_funded_amount, service_revenue_amount,
                                 institution_payout_amount)
         SELECT id, institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency, purchase_amount,
                cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount
           FROM d
         RETURNING id
       )
       INSERT INTO settlement_entry (redemption_id, institution_id, offer_id, merchant_id, currency, merchant_funded_amount,
                                     service_revenue_amount, institution_payout_amount)
       SELECT d.id, d.institution_id, d.offer_id, d.merchant_id, d.currency, d.merchant_funded_amount,
              d.service_revenue_amount, d.institution_payout_amount
         FROM d JOIN r ON r.id = d.id`,
      [
        cols.id,
        cols.institution,
        cols.transaction,
        cols.enrollment,
        cols.offer,
        cols.merchant,
        cols.token,
        cols.currency,
        cols.purchase,
        cols.cashback,
        cols.funded,
        cols.revenue,
        cols.payout,
      ],
    );
    await this.webhooks.redemptionsCompleted(m, deliveries, now);
  }

  /** Settlement entry and redemption to `reversed` (guarded by the state machine), and the delivery row. */
  private async applyReversals(m: EntityManager, reversals: Reversal[], now: Date): Promise<void> {
    if (!reversals.length) return;
    const from = sourcesOf('reversed');
    const ids = reversals.map((r) => r.row.redemption_id);
    await m.query(
      `UPDATE settlement_entry e SET status = 'reversed', reversed_at = now(), clawback_amount = d.clawback
         FROM unnest($1::uuid[], $2::bigint[]) AS d(redemption_id, clawback)
        WHERE e.redemption_id = d.redemption_id AND e.status = ANY($3::text[])`,
      [ids, reversals.map((r) => r.clawback), from],
    );
    await m.query(
      `UPDATE redemption SET status = 'reversed', reversed_at = now() WHERE id = ANY($1::uuid[]) AND status = ANY($2::text[])`,
      [ids, from],
    );
    await this.webhooks.redemptionsReversed(
      m,
      reversals.map(({ row, clawback }) => ({
        facts: {
          redemptionId: row.redemption_id,
          institutionId: row.institution_id,
          offerId: row.offer_id,
          cardholderToken: row.cardholder_token,
          institutionPayoutMinor: row.institution_payout_amount,
          currency: row.currency,
        },
        clawbackMinor: clawback,
      })),
      now,
    );
  }

  /**
   * Final statuses; the resolved merchant is recorded (a sender's unknown merchant_id is kept as
   * sent). Only rows this run claimed (and still holds locked, as `received`) are in the list.
   */
  private async setStatuses(
    m: EntityManager,
    claimed: ClaimedRow[],
    statuses: Map<string, string>,
  ): Promise<void> {
    const done = claimed.filter((c) => statuses.has(c.id));
    if (!done.length) return;
    await m.query(
      `UPDATE transaction t SET status = d.status, merchant_id = COALESCE(d.merchant_id, t.merchant_id), processed_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS d(id, status, merchant_id)
        WHERE t.id = d.id`,
      [done.map((c) => c.id), done.map((c) => statuses.get(c.id)), done.map((c) => c.merchant_id)],
    );
  }
}
