import { Injectable } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { DataSource, EntityManager } from 'typeorm';
import {
  allocate,
  giveBack,
  latest,
  linkRefund,
  MatchingEnrollment,
  netAmount,
  OfferTerms,
  PurchaseToMatch,
  readsHistory,
  RedemptionFacts,
  PROGRAM_DEFAULTS,
  refundReverses,
  sourcesOf,
} from '@app/domain';
import { WebhookEvents } from '../webhooks/webhook-events';
import { GoalProgressService } from './goal-progress.service';
import { ClaimedRow, MatchingRepository, NewRedemption } from './matching.repository';
import { lockReversals, Reversal } from './reversals';
import { CardLifecyclePlanner } from './card-lifecycle.planner';

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

type EnrollmentUpdates = Map<string, { delta: number; status: string }>;

const k2 = (a: string, b: string) => `${a}\u0000${b}`;
const k3 = (a: string, b: string, c: string) => `${a}\u0000${b}\u0000${c}`;

function addUpdate(updates: EnrollmentUpdates, id: string, delta: number, status: string): void {
  updates.set(id, { delta: (updates.get(id)?.delta ?? 0) + delta, status });
}

/**
 * Set-based matching of one chunk of transactions, in one database transaction: a handful of
 * statements per chunk whatever its size, never a statement per row. The statements are in
 * MatchingRepository, the rules in libs/domain (matching.ts: which offer qualifies and what it pays;
 * winner.ts: which one wins; refunds.ts and refund-reversal.ts: when a refund reverses and what it
 * gives back; settlement-state.ts: the clawback); webhook bodies are built by WebhookEvents.
 *
 * 1. Claim the rows.
 * 2. Refunds: find their purchases; for purchases already matched, decide reversal on the net
 *    amount (purchase minus all its refunds) against the offer's min_spend.
 * 3. Purchases: net of refunds already stored; candidate enrollments of the cardholder at the
 *    resolved merchant; lock the budgeted offers and the enrollments (in id order, so concurrent
 *    chunks cannot deadlock) and read their current state; allocate (each purchase takes its best
 *    qualifying offer; budget and per-cardholder limits are spent in transacted_at order).
 * 4. Write: enrollment counts, redemptions + settlement entries (pending) + `redemption.completed`
 *    deliveries, reversals + `redemption.reversed` deliveries, the transactions' final statuses,
 *    and last the budget, with a guarded UPDATE (never above budget_total: the last line should
 *    the locking ever be bypassed).
 *
 * Rerunning a chunk changes nothing (its rows are no longer `received`); the unique constraints
 * on redemption(transaction_id), settlement_entry(redemption_id) and
 * webhook_delivery(redemption_id, event) are the last line. Ids not in this database are ignored.
 *
 * Goal offers (GoalProgressService, goal-progress.ts): refunds of counted purchases take their
 * contribution back (and reverse a rewarded round that falls below its target) before allocation;
 * allocation counts each purchase toward the goal offers whose rules it meets; their progress is
 * written with the rest.
 */
@Injectable()
export class MatchingService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: MatchingRepository,
    private readonly webhooks: WebhookEvents,
    private readonly goals: GoalProgressService,
    private readonly lifecycle: CardLifecyclePlanner,
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
      const claimed = await this.repo.claim(m, ids);
      stats.claimed = claimed.length;
      if (!claimed.length) return;
      const now = claimed[0].now;
      const statuses = new Map<string, string>();
      // Card lifecycle (card-lifecycle.planner.ts): records decided now join the purchases,
      // redemptions it undoes join the refunds' reversals.
      const chain = await this.lifecycle.plan(m, claimed);
      for (const [id, status] of chain.statuses) statuses.set(id, status);
      const purchases = [...claimed.filter((r) => r.kind === 'purchase'), ...chain.decide];
      const refunds = claimed.filter((r) => r.kind === 'refund');
      stats.refunds = refunds.length;

      const reviewed: string[] = [];
      let reversals = refunds.length
        ? await this.planReversals(m, refunds, purchases, statuses, stats, reviewed)
        : [];
      const byRefund = new Set(reversals.map((r) => r.row.redemption_id));
      for (const [id, row] of chain.reconsider)
        if (byRefund.has(row.redemption_id)) chain.reconsider.delete(id);
      reversals.push(
        ...(await lockReversals(
          m,
          this.repo,
          [...chain.reverse, ...chain.reconsider.values()].filter(
            (r) => !byRefund.has(r.redemption_id),
          ),
        )),
      );

      for (const p of purchases) if (!p.merchant_id) statuses.set(p.id, 'merchant_unresolved');
      const resolved = purchases.filter((p) => p.merchant_id);
      const candidates = await this.candidates(m, resolved);
      this.lifecycle.addReconsidered(chain, candidates, (p) =>
        k3(p.institution_id, p.cardholder_token, p.merchant_id!),
      );

      // Lock the budgeted offers and the enrollments this chunk may change, in id order.
      const offerIds = new Set<string>(reversals.map((r) => r.row.offer_id));
      const enrollmentIds = new Set<string>(reversals.map((r) => r.row.cardholder_offer_id));
      for (const c of candidates.values())
        for (const e of c) {
          offerIds.add(e.offerId);
          enrollmentIds.add(e.id);
        }
      for (const e of await this.goals.enrollmentsCounting(m, reviewed)) {
        offerIds.add(e.offerId);
        enrollmentIds.add(e.id);
      }
      t1 = performance.now();
      const offers = await this.repo.lockOffers(m, [...offerIds]);
      const enrollments = await this.repo.lockEnrollments(m, [...enrollmentIds]);
      t2 = performance.now();

      // Reversals first: they give back budget and a redemption of the enrollment.
      const goalRefunds = await this.goals.planRefunds(m, reviewed, enrollments);
      reversals.push(...goalRefunds.reversals);
      const budgetDeltas = new Map<string, number>();
      const enrollmentUpdates: EnrollmentUpdates = new Map();
      this.giveBackReversed(reversals, offers, enrollments, budgetDeltas, enrollmentUpdates);

      const history = await this.purchaseHistory(m, resolved, candidates, offers);
      const allocation = allocate(this.toMatch(resolved, candidates, history), offers, enrollments);
      for (const [offerId, d] of allocation.budgetDeltas)
        budgetDeltas.set(offerId, (budgetDeltas.get(offerId) ?? 0) + d);
      for (const [id, u] of allocation.enrollmentUpdates)
        addUpdate(enrollmentUpdates, id, u.delta, u.status);
      // A reconsidered redemption the clearing would give again stands: the pair is taken out
      // (their budget and count deltas cancel).
      const kept = this.lifecycle.kept(chain, allocation.redemptions);
      if (kept.size) {
        const stays = new Set([...kept].map((id) => chain.reconsider.get(id)!.redemption_id));
        allocation.redemptions = allocation.redemptions.filter((r) => !kept.has(r.transactionId));
        reversals = reversals.filter((r) => !stays.has(r.row.redemption_id));
      }
      for (const p of resolved) statuses.set(p.id, 'unmatched');
      for (const r of allocation.redemptions) statuses.set(r.transactionId, 'matched');
      for (const id of kept) statuses.set(id, 'matched');

      await this.repo.applyEnrollments(m, enrollmentUpdates);
      await this.goals.write(m, goalRefunds.plan, allocation);
      const byId = new Map(claimed.map((c) => [c.id, c]));
      await this.insertRedemptions(m, allocation.redemptions, byId, offers, now);
      await this.applyReversals(m, reversals, now);
      if (chain.chains.length)
        await this.lifecycle.finish(
          m,
          chain,
          new Set(allocation.redemptions.map((r) => r.transactionId)),
          kept,
          new Set(reversals.map((r) => r.row.redemption_id)),
        );
      await this.repo.setStatuses(
        m,
        claimed
          .filter((c) => statuses.has(c.id))
          .map((c) => ({ id: c.id, status: statuses.get(c.id)!, merchantId: c.merchant_id })),
      );
      await this.repo.applyBudget(m, budgetDeltas);
      t3 = performance.now();

      stats.matched = allocation.redemptions.length + kept.size;
      stats.reversed = reversals.length;
      stats.merchantUnresolved = purchases.length - resolved.length;
      stats.unmatched = resolved.length - stats.matched;
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
   * Refunds of this chunk, linked to their purchases (linkRefund). A processed purchase is locked
   * and its redemption, if any, reversed when the net amount falls below min_spend; the settlement
   * entry decides the transition (pending → reversed, settled → reversed + clawback).
   */
  private async planReversals(
    m: EntityManager,
    refunds: ClaimedRow[],
    purchases: ClaimedRow[],
    statuses: Map<string, string>,
    stats: MatchStats,
    reviewed: string[],
  ): Promise<Reversal[]> {
    const originals = await this.repo.purchasesOfRefunds(m, refunds);
    const originalByRef = new Map(
      originals.map((o) => [k2(o.institution_id, o.transaction_ref), o.id]),
    );
    const inChunk = new Set(purchases.map((p) => p.id));
    const outside = [
      ...new Set(originals.map((o) => o.id).filter((id) => !inChunk.has(id))),
    ].sort();
    const locked = await this.repo.lockPurchases(m, outside);
    const lockedStatus = new Map(locked.map((l) => [l.id, l.status]));
    const review = new Set<string>();
    for (const r of refunds) {
      const originalId = originalByRef.get(k2(r.institution_id, r.original_transaction_ref!));
      const link = linkRefund(
        originalId !== undefined,
        originalId !== undefined && inChunk.has(originalId),
        originalId === undefined ? undefined : lockedStatus.get(originalId),
      );
      if (link === 'no_purchase') statuses.set(r.id, 'unmatched');
      else if (link === 'deferred') stats.deferred++;
      else statuses.set(r.id, 'matched');
      if (link === 'review') review.add(originalId!);
    }
    reviewed.push(...[...review].sort());
    if (!review.size) return [];
    const rows = await this.repo.liveRedemptionsOf(m, [...review], sourcesOf('reversed'));
    const due = rows.filter((r) =>
      refundReverses(netAmount(r.amount, [r.refunded]), r.currency, Number(r.min_spend)),
    );
    return lockReversals(m, this.repo, due);
  }

  /**
   * Expiry of the card lifecycle: authorized chains whose authorization_expiry_days passed at `at`
   * become `expired` and, under reward_on=authorization, their redemption is reversed on the same
   * path as a refund's. Set-based (up to `limit` chains per call, locked in key order, those held
   * elsewhere skipped) and idempotent: an expired chain is never taken again.
   */
  async expireAuthorizations(
    at: Date,
    limit = 1000,
  ): Promise<{ expired: number; reversed: number }> {
    return this.db.transaction(async (m) => {
      const chain = await this.lifecycle.planExpiry(m, at, limit);
      if (!chain.chains.length) return { expired: 0, reversed: 0 };
      const reversals = await lockReversals(m, this.repo, chain.reverse);
      const offers = await this.repo.lockOffers(m, [
        ...new Set(reversals.map((r) => r.row.offer_id)),
      ]);
      const enrollments = await this.repo.lockEnrollments(m, [
        ...new Set(reversals.map((r) => r.row.cardholder_offer_id)),
      ]);
      const budgetDeltas = new Map<string, number>();
      const enrollmentUpdates: EnrollmentUpdates = new Map();
      this.giveBackReversed(reversals, offers, enrollments, budgetDeltas, enrollmentUpdates);
      await this.repo.applyEnrollments(m, enrollmentUpdates);
      await this.applyReversals(m, reversals, new Date());
      await this.lifecycle.finish(
        m,
        chain,
        new Set(),
        new Set(),
        new Set(reversals.map((r) => r.row.redemption_id)),
      );
      await this.repo.applyBudget(m, budgetDeltas);
      return { expired: chain.chains.length, reversed: reversals.length };
    });
  }

  /** Candidate enrollments per (institution, cardholder, merchant) of the resolved purchases. */
  private async candidates(
    m: EntityManager,
    purchases: ClaimedRow[],
  ): Promise<Map<string, { id: string; offerId: string }[]>> {
    const keys = new Map<string, ClaimedRow>();
    for (const p of purchases)
      keys.set(k3(p.institution_id, p.cardholder_token, p.merchant_id!), p);
    if (!keys.size) return new Map();
    const rows = await this.repo.candidateEnrollments(
      m,
      [...keys.values()].map((p) => ({
        institution_id: p.institution_id,
        cardholder_token: p.cardholder_token,
        merchant_id: p.merchant_id!,
      })),
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
   * Audiences: the latest earlier purchase at the merchant of each purchase that has a candidate
   * offer with a `new` or `lapsed` audience (one statement for the chunk; none when no candidate
   * has one), combined with the earlier purchases of the same cardholder and merchant in this
   * chunk, which are not yet recorded against their merchant.
   */
  private async purchaseHistory(
    m: EntityManager,
    resolved: ClaimedRow[],
    candidates: Map<string, { id: string; offerId: string }[]>,
    offers: Map<string, OfferTerms>,
  ): Promise<Map<string, Date | null>> {
    const out = new Map<string, Date | null>();
    const keyOf = (p: ClaimedRow) => k3(p.institution_id, p.cardholder_token, p.merchant_id!);
    const needed = resolved.filter((p) =>
      (candidates.get(keyOf(p)) ?? []).some((c) =>
        readsHistory(offers.get(c.offerId)?.qualification?.audience),
      ),
    );
    if (!needed.length) return out;
    const stored = await this.repo.lastPurchasesBefore(
      m,
      needed.map((p) => ({
        id: p.id,
        institution_id: p.institution_id,
        cardholder_token: p.cardholder_token,
        merchant_id: p.merchant_id!,
        transacted_at: p.transacted_at,
      })),
    );
    for (const r of stored) out.set(r.id, r.last);
    const byKey = new Map<string, ClaimedRow[]>();
    for (const p of resolved) byKey.set(keyOf(p), [...(byKey.get(keyOf(p)) ?? []), p]);
    for (const p of needed) {
      const t = p.transacted_at.getTime();
      let last = out.get(p.id) ?? null;
      for (const q of byKey.get(keyOf(p)) ?? [])
        if (q.transacted_at.getTime() < t) last = latest(last, q.transacted_at);
      out.set(p.id, last);
    }
    return out;
  }

  /** Applies what each reversal gives back to the locked state and the pending writes. */
  private giveBackReversed(
    reversals: Reversal[],
    offers: Map<string, OfferTerms>,
    enrollments: Map<string, MatchingEnrollment>,
    budgetDeltas: Map<string, number>,
    enrollmentUpdates: EnrollmentUpdates,
  ): void {
    for (const { row } of reversals) {
      const g = giveBack(
        offers.get(row.offer_id)!,
        enrollments.get(row.cardholder_offer_id)!,
        Number(row.merchant_funded_amount),
      );
      offers.set(g.offer.id, g.offer);
      enrollments.set(g.enrollment.id, g.enrollment);
      budgetDeltas.set(g.offer.id, (budgetDeltas.get(g.offer.id) ?? 0) + g.budgetDelta);
      addUpdate(enrollmentUpdates, g.enrollment.id, g.countDelta, g.enrollment.status);
    }
  }

  /** Purchases in transacted_at (then id) order, net of stored refunds, with their candidates. */
  private toMatch(
    resolved: ClaimedRow[],
    candidates: Map<string, { id: string; offerId: string }[]>,
    history: Map<string, Date | null>,
  ): PurchaseToMatch[] {
    return [...resolved]
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
          network: p.network,
          timeZone: p.time_zone ?? undefined,
          channel: p.channel,
          lastPurchaseAtMerchant: history.get(p.id) ?? null,
          // Goal offers count a card chain once, on its clearing (docs/offers.md, Goal offers).
          ...(p.kind === 'authorization' ? { countsTowardGoals: false } : {}),
        },
        serviceShareRate: p.service_share_rate ?? PROGRAM_DEFAULTS.serviceShareRate,
        enrollmentIds: (
          candidates.get(k3(p.institution_id, p.cardholder_token, p.merchant_id!)) ?? []
        ).map((e) => e.id),
      }));
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
    const rows: NewRedemption[] = redemptions.map((r) => {
      const t = claimed.get(r.transactionId)!;
      return {
        id: randomUUID(),
        institutionId: t.institution_id,
        transactionId: t.id,
        enrollmentId: r.enrollmentId,
        offerId: r.offerId,
        merchantId: offers.get(r.offerId)!.merchantId,
        cardholderToken: t.cardholder_token,
        currency: r.reward.currency,
        purchase: r.reward.purchaseAmount,
        cashback: r.reward.cashback,
        merchantFunded: r.reward.merchantFunded,
        serviceRevenue: r.reward.serviceRevenue,
        institutionPayout: r.reward.institutionPayout,
        goalRound: r.goalRound ?? null,
      };
    });
    await this.repo.insertRedemptions(m, rows);
    const deliveries: RedemptionFacts[] = rows.map((r) => ({
      redemptionId: r.id,
      institutionId: r.institutionId,
      offerId: r.offerId,
      cardholderToken: r.cardholderToken,
      institutionPayoutMinor: r.institutionPayout,
      currency: r.currency,
    }));
    await this.webhooks.redemptionsCompleted(m, deliveries, now);
  }

  /** Settlement entry and redemption to `reversed`, and the redemption.reversed deliveries. */
  private async applyReversals(m: EntityManager, reversals: Reversal[], now: Date): Promise<void> {
    if (!reversals.length) return;
    await this.repo.markReversed(
      m,
      reversals.map((r) => ({ redemptionId: r.row.redemption_id, clawback: r.clawback })),
      sourcesOf('reversed'),
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
}
