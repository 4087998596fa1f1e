import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  AllocationResult,
  causingRefund,
  compositeKey,
  CountedPurchase,
  goalOf,
  GoalRefundPlan,
  MatchingEnrollment,
  netAmount,
  planGoalRefunds,
  refundCause,
  RoundKey,
  roundKey,
  sourcesOf,
  toMinor,
} from '@app/domain';
import { GoalProgressRepository } from './goal-progress.repository';
import { ClaimedRow, MatchingRepository } from './matching.repository';
import type { RefundRunOptions } from './refund-reversal.planner';
import { lockReversals, Reversal } from './reversals';

/** What refunds do to goal offers' progress, before allocation. */
export interface GoalRefunds {
  plan: GoalRefundPlan;
  /** Rewarded rounds that fall below their target, their settlement entries locked. */
  reversals: Reversal[];
  /** The counted purchases the refunds reviewed, as planned (what they counted before). */
  counted: (CountedPurchase & { offerId: string; currency: string })[];
  /** The live redemption of each rewarded round among them (roundKey → redemption id). */
  rewardedRounds: Map<string, string>;
}

const EMPTY_PLAN: GoalRefundPlan = {
  contributions: [],
  states: new Map(),
  reversed: [],
  carried: [],
};

/**
 * Goal offers inside a matching chunk (the rules are libs/domain goal-progress.ts; allocation
 * counts purchases in matching.ts allocate): the refunds of counted purchases before allocation,
 * and the writes of progress after it. Called by MatchingService with the chunk's transaction and
 * its locked enrollments.
 */
@Injectable()
export class GoalProgressService {
  constructor(
    private readonly repo: GoalProgressRepository,
    private readonly matching: MatchingRepository,
  ) {}

  /** Enrollments that refunded purchases (reviewed by this chunk) were counted toward: to lock. */
  async enrollmentsCounting(
    m: EntityManager,
    reviewedPurchaseIds: string[],
  ): Promise<{ id: string; offerId: string }[]> {
    const rows = await this.repo.enrollmentsCounting(m, reviewedPurchaseIds);
    return rows.map((r) => ({ id: r.id, offerId: r.offer_id }));
  }

  /**
   * Refunds of counted purchases (their enrollments locked): each takes its contribution back;
   * rewarded rounds that fall below target are returned as reversals (settlement entries locked,
   * clawback decided; the cause: the latest of `refunds`, the run's, naming one of the round's
   * refunded purchases). The open rounds in `enrollments` are updated for allocation.
   */
  async planRefunds(
    m: EntityManager,
    reviewedPurchaseIds: string[],
    enrollments: Map<string, MatchingEnrollment>,
    run: RefundRunOptions = { lock: true, unstoredRefund: '0' },
    refunds: readonly ClaimedRow[] = [],
  ): Promise<GoalRefunds> {
    const rows = await this.repo.counted(m, reviewedPurchaseIds);
    if (!rows.length)
      return { plan: EMPTY_PLAN, reversals: [], counted: [], rewardedRounds: new Map() };
    const counted: GoalRefunds['counted'] = [];
    const rounds = new Map<string, { units: number; spend: number }>();
    const closed = new Map<string, RoundKey>();
    const refundsByRef = new Map<string, ClaimedRow[]>();
    for (const f of refunds) {
      const k = compositeKey(f.institution_id, f.original_transaction_ref ?? '');
      refundsByRef.set(k, [...(refundsByRef.get(k) ?? []), f]);
    }
    const refundsOfRound = new Map<string, ClaimedRow[]>();
    for (const r of rows) {
      const enrollment = enrollments.get(r.cardholder_offer_id);
      if (!enrollment) continue;
      const key = { enrollmentId: r.cardholder_offer_id, round: r.round };
      const named = [r.transaction_ref, r.authorization_ref].flatMap((ref) =>
        ref === null ? [] : (refundsByRef.get(compositeKey(r.institution_id, ref)) ?? []),
      );
      refundsOfRound.set(roundKey(key), [...(refundsOfRound.get(roundKey(key)) ?? []), ...named]);
      counted.push({
        offerId: enrollment.offerId,
        currency: r.currency,
        transactionId: r.transaction_id,
        enrollmentId: r.cardholder_offer_id,
        goal: goalOf(r.goal_type, r.goal_target)!,
        round: r.round,
        units: Number(r.units),
        spend: Number(r.spend),
        netMinor: toMinor(netAmount(r.amount, [r.refunded, run.unstoredRefund]), r.currency),
        minSpend: Number(r.min_spend),
      });
      rounds.set(roundKey(key), { units: Number(r.round_units), spend: Number(r.round_spend) });
      if (r.round !== enrollment.goal?.round) closed.set(roundKey(key), key);
    }
    const live = await this.repo.liveRoundRedemptions(
      m,
      [...closed.values()],
      sourcesOf('reversed'),
    );
    const byRound = new Map(
      live.map((r) => [roundKey({ enrollmentId: r.cardholder_offer_id, round: r.goal_round }), r]),
    );
    const states = new Map(
      [...enrollments].filter(([, e]) => e.goal).map(([id, e]) => [id, e.goal!]),
    );
    const rewarded = new Map([...byRound].map(([k, r]) => [k, Number(r.goal_target)]));
    const plan = planGoalRefunds(counted, states, rounds, rewarded);
    for (const [id, state] of plan.states) {
      const e = enrollments.get(id)!;
      enrollments.set(id, { ...e, goal: state });
    }
    const due = plan.reversed.map((k) => ({
      row: byRound.get(roundKey(k))!,
      cause: refundCause(causingRefund(refundsOfRound.get(roundKey(k)) ?? []), true),
    }));
    return {
      plan,
      reversals: await lockReversals(m, this.matching, due, run.lock),
      counted,
      rewardedRounds: new Map([...byRound].map(([k, r]) => [k, r.redemption_id])),
    };
  }

  /** Contributions, refunded contributions, carried rounds and the enrollments' open rounds. */
  async write(m: EntityManager, plan: GoalRefundPlan, allocation: AllocationResult): Promise<void> {
    await this.repo.updateContributions(m, plan.contributions);
    await this.repo.carryRounds(m, plan.carried);
    await this.repo.insertContributions(m, allocation.contributions);
    const states = new Map(plan.states);
    for (const [id, s] of allocation.goalStates) states.set(id, s);
    await this.repo.setStates(m, states);
  }
}
