import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  addAllocation,
  allocate,
  giveBackAll,
  noDeltas,
  ReversedRedemption,
  toPurchasesToMatch,
} from '@app/domain';
import { CandidateLookup, purchaseKey } from './candidate.lookup';
import { CardLifecyclePlanner } from './card-lifecycle.planner';
import { GoalProgressService } from './goal-progress.service';
import { MatchingRepository } from './matching.repository';
import { RedemptionWriter } from './redemption.writer';
import { RefundReversalPlanner } from './refund-reversal.planner';
import { lockReversals, Reversal } from './reversals';

export interface MatchStats {
  /** Ids asked for. */
  requested: number;
  /** Rows this run took (still `received`, not locked by another run). */
  claimed: number;
  /** Purchases by outcome. */
  matched: number;
  /** Counted toward a goal offer's round without completing it (stored `unmatched`: no reward yet). */
  countedTowardGoal: number;
  /** No offer took them. */
  unmatched: number;
  merchantUnresolved: number;
  refunds: number;
  reversed: number;
  /** Refunds left `received` because their purchase was being processed by another run. */
  deferred: number;
  /** Milliseconds per stage (read: claim and lookups; locks: waiting for and reading locked offers and enrollments; write; commit). */
  ms?: { read: number; locks: number; write: number; commit: number };
}

/**
 * Set-based matching of one chunk of transactions, in one database transaction: a handful of
 * statements per chunk whatever its size, never a statement per row. This class only orders the
 * steps; each step is a collaborator named after its rule, its statements in a repository
 * (MatchingRepository, CardLifecycleRepository, GoalProgressRepository) and its rules in
 * libs/domain.
 *
 * 1. Claim the rows (MatchingRepository.claim: merchant resolved, stored refunds summed).
 * 2. Card lifecycle (CardLifecyclePlanner; card-lifecycle.ts): lock the chains, fold them; records
 *    decided now join the purchases, redemptions undone join the reversals.
 * 3. Refunds (RefundReversalPlanner; refund-reversal.ts linkRefund, refunds.ts refundReverses,
 *    settlement-state.ts reversalOfEntry): link each refund to its purchase; a processed purchase's
 *    redemption is reversed when the net amount falls below the offer's min_spend.
 * 4. Candidates (CandidateLookup): the cardholder's active enrollments at the resolved merchant.
 * 5. Lock the offers with a budget and the enrollments this chunk may change, in id order (so
 *    concurrent chunks cannot deadlock), and read their current state.
 * 6. Give back (refund-reversal.ts giveBackAll): each reversal returns its budget and a redemption
 *    of its enrollment; goal offers (GoalProgressService, goal-progress.ts) take refunded
 *    contributions back and reverse a rewarded round that falls below its target.
 * 7. Allocate (purchase-to-match.ts toPurchasesToMatch, with the audience history from
 *    CandidateLookup; matching.ts allocate, winner.ts): purchases in transacted_at order, net of
 *    stored refunds, each takes its best qualifying offer and counts toward its goal offers. A
 *    reconsidered card redemption the clearing earns again stands (CardLifecyclePlanner.kept).
 * 8. Write: enrollment counts, goal progress, redemptions + settlement entries (pending) +
 *    `redemption.completed` deliveries, reversals + `redemption.reversed` deliveries
 *    (RedemptionWriter; redemption-records.ts builds the rows and the events' facts), the chains'
 *    state, the transactions' final statuses, and last the budget (chunk-deltas.ts sums it), with a
 *    guarded UPDATE (never above budget_total: the last line should the locking ever be bypassed).
 *
 * Rerunning a chunk changes nothing (its rows are no longer `received`); the unique constraints
 * on redemption(transaction_id), settlement_entry(redemption_id) and
 * webhook_delivery(redemption_id, event) are the last line. Ids not in this database are ignored.
 */
@Injectable()
export class MatchingService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: MatchingRepository,
    private readonly lifecycle: CardLifecyclePlanner,
    private readonly refunds: RefundReversalPlanner,
    private readonly lookup: CandidateLookup,
    private readonly goals: GoalProgressService,
    private readonly writer: RedemptionWriter,
  ) {}

  async matchChunk(ids: readonly string[]): Promise<MatchStats> {
    const stats: MatchStats = {
      requested: ids.length,
      claimed: 0,
      matched: 0,
      countedTowardGoal: 0,
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
      // 1. Claim.
      const claimed = await this.repo.claim(m, ids);
      stats.claimed = claimed.length;
      if (!claimed.length) return;
      const now = claimed[0].now;

      // 2. Card lifecycle.
      const chain = await this.lifecycle.plan(m, claimed);
      const purchases = [...claimed.filter((r) => r.kind === 'purchase'), ...chain.decide];
      const refunds = claimed.filter((r) => r.kind === 'refund');
      stats.refunds = refunds.length;

      // 3. Refunds (and the lifecycle's reversals).
      const planned = await this.refunds.plan(m, refunds, purchases, chain);
      let reversals = planned.reversals;
      stats.deferred = planned.deferred;
      const statuses = new Map([...chain.statuses, ...planned.statuses]);

      // 4. Candidates.
      for (const p of purchases) if (!p.merchant_id) statuses.set(p.id, 'merchant_unresolved');
      const resolved = purchases.filter((p) => p.merchant_id);
      const candidates = await this.lookup.candidates(m, resolved);
      this.lifecycle.addReconsidered(chain, candidates, purchaseKey);

      // 5. Lock the budgeted offers and the enrollments this chunk may change, in id order.
      const offerIds = new Set<string>(reversals.map((r) => r.row.offer_id));
      const enrollmentIds = new Set<string>(reversals.map((r) => r.row.cardholder_offer_id));
      for (const e of [
        ...[...candidates.values()].flat(),
        ...(await this.goals.enrollmentsCounting(m, planned.reviewed)),
      ]) {
        offerIds.add(e.offerId);
        enrollmentIds.add(e.id);
      }
      t1 = performance.now();
      const offers = await this.repo.lockOffers(m, [...offerIds]);
      const enrollments = await this.repo.lockEnrollments(m, [...enrollmentIds]);
      t2 = performance.now();

      // 6. Give back: reversals return budget and a redemption of their enrollment.
      const goalRefunds = await this.goals.planRefunds(m, planned.reviewed, enrollments);
      reversals.push(...goalRefunds.reversals);
      const deltas = noDeltas();
      giveBackAll(reversals.map(reversedRedemption), offers, enrollments, deltas);

      // 7. Allocate.
      const history = await this.lookup.history(m, resolved, candidates, offers);
      const allocation = allocate(
        toPurchasesToMatch(
          resolved,
          (p) => (candidates.get(purchaseKey(p)) ?? []).map((e) => e.id),
          history,
        ),
        offers,
        enrollments,
      );
      addAllocation(deltas, allocation);
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

      // 8. Write.
      await this.repo.applyEnrollments(m, deltas.enrollments);
      await this.goals.write(m, goalRefunds.plan, allocation);
      const byId = new Map(claimed.map((c) => [c.id, c]));
      await this.writer.insert(m, allocation.redemptions, byId, offers, now);
      await this.writer.reverse(m, reversals, now);
      if (chain.chains.length)
        await this.lifecycle.finish(
          m,
          chain,
          new Set(allocation.redemptions.map((r) => r.transactionId)),
          kept,
          new Set(reversals.map((r) => r.row.redemption_id)),
        );
      // A decided clearing whose own identifier did not resolve is stored at its authorization's merchant.
      const merchantOf = new Map(purchases.map((p) => [p.id, p.merchant_id]));
      await this.repo.setStatuses(
        m,
        claimed
          .filter((c) => statuses.has(c.id))
          .map((c) => ({
            id: c.id,
            status: statuses.get(c.id)!,
            merchantId: merchantOf.get(c.id) ?? c.merchant_id,
          })),
      );
      await this.repo.applyBudget(m, deltas.budget);
      t3 = performance.now();

      stats.matched = allocation.redemptions.length + kept.size;
      stats.reversed = reversals.length;
      stats.merchantUnresolved = purchases.length - resolved.length;
      stats.countedTowardGoal = new Set(
        allocation.contributions
          .map((c) => c.transactionId)
          .filter((id) => statuses.get(id) === 'unmatched'),
      ).size;
      stats.unmatched = resolved.length - stats.matched - stats.countedTowardGoal;
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
      const deltas = noDeltas();
      giveBackAll(reversals.map(reversedRedemption), offers, enrollments, deltas);
      await this.repo.applyEnrollments(m, deltas.enrollments);
      await this.writer.reverse(m, reversals, new Date());
      await this.lifecycle.finish(
        m,
        chain,
        new Set(),
        new Set(),
        new Set(reversals.map((r) => r.row.redemption_id)),
      );
      await this.repo.applyBudget(m, deltas.budget);
      return { expired: chain.chains.length, reversed: reversals.length };
    });
  }
}

const reversedRedemption = ({ row }: Reversal): ReversedRedemption => ({
  offerId: row.offer_id,
  enrollmentId: row.cardholder_offer_id,
  merchantFunded: Number(row.merchant_funded_amount),
});
