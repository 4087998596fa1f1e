import { compositeKey } from './keys';
/**
 * Goal offers: qualifying purchases made after the add and inside the offer window add to the
 * enrollment's open round; the purchase that reaches the target earns the reward (fixed, or
 * percent of the round's counted spend, capped) and the next round starts from zero (when
 * max_redemptions_per_cardholder allows another). A refund of a counted purchase takes its
 * contribution back; when that takes a rewarded round below its target, the round's redemption is
 * reversed and what is left of the round counts again in the open round. A rewarded round keeps
 * the target it was rewarded under: a later change of the offer's target applies to the open round
 * and the rounds after it, never to a round already rewarded.
 */

export const GOAL_TYPES = ['purchase_count', 'cumulative_spend'] as const;
export type GoalType = (typeof GOAL_TYPES)[number];

export interface Goal {
  type: GoalType;
  /** Purchases, or minor units of the offer currency for cumulative spend. */
  target: number;
}

export type ProgressUnit = 'purchases' | 'amount';

/** The open round of an enrollment in a goal offer. */
export interface GoalState {
  /** 1 for the first round, then 2, … */
  round: number;
  /** Purchases, or minor units counted in this round. */
  progress: number;
  /** Minor units of the purchases counted in this round (what a percent reward is paid on). */
  spend: number;
}

export const FIRST_ROUND: GoalState = { round: 1, progress: 0, spend: 0 };

/** The goal of an offer as stored (goal_type, goal_target), or undefined when it has none. */
export function goalOf(type: string | null, target: string | number | null): Goal | undefined {
  if (type === null || target === null) return undefined;
  return { type: type as GoalType, target: Number(target) };
}

/** What one purchase adds: 1 purchase, or its amount (minor units). */
export function contributionOf(goal: Goal, amountMinor: number): number {
  return goal.type === 'purchase_count' ? 1 : Math.max(0, amountMinor);
}

export function unitOf(goal: Goal): ProgressUnit {
  return goal.type === 'purchase_count' ? 'purchases' : 'amount';
}

export interface ProgressStep {
  /** Progress of the open round after the purchase. */
  current: number;
  /** True when this purchase reached the target (it earns the reward; the round closes). */
  completes: boolean;
  /** Progress the closed round reached (what it is rewarded on); null when nothing completes. */
  roundTotal: number | null;
}

/** Adds a purchase to the open round's progress. */
export function addToProgress(goal: Goal, current: number, contribution: number): ProgressStep {
  const total = current + contribution;
  if (total >= goal.target) return { current: 0, completes: true, roundTotal: total };
  return { current: total, completes: false, roundTotal: null };
}

/** A qualifying purchase counted in the open round, before the winner rule decides who pays. */
export interface GoalCount {
  round: number;
  /** What this purchase adds: purchases or minor units, and its spend (minor units). */
  units: number;
  spend: number;
  /** The round after it: its progress and counted spend. */
  progress: number;
  roundSpend: number;
  /** True when the round reaches its target with this purchase: it may earn the reward. */
  reached: boolean;
}

/** Counts a qualifying purchase of `amountMinor` in the enrollment's open round. */
export function countPurchase(goal: Goal, state: GoalState, amountMinor: number): GoalCount {
  const units = contributionOf(goal, amountMinor);
  const spend = Math.max(0, amountMinor);
  const step = addToProgress(goal, state.progress, units);
  return {
    round: state.round,
    units,
    spend,
    progress: state.progress + units,
    roundSpend: state.spend + spend,
    reached: step.completes,
  };
}

/**
 * The open round after a counted purchase: the next round from zero when it earned the reward,
 * else the round with the purchase added. A round that reached its target without the reward (the
 * purchase went to a better offer, or the budget could not pay it) stays open, and its next counted
 * purchase completes it.
 */
export function afterCount(count: GoalCount, rewarded: boolean): GoalState {
  return rewarded
    ? { round: count.round + 1, progress: 0, spend: 0 }
    : { round: count.round, progress: count.progress, spend: count.roundSpend };
}

/**
 * A refund of a purchase counted in a round: the purchase's contribution shrinks to what is left
 * of it (nothing once the net amount is below min_spend, as such a purchase would not have
 * counted). In an open round the progress falls by the difference; in a rewarded round, the round
 * is reversed when its total falls below the target.
 */
export function refundContribution(
  goal: Goal,
  counted: number,
  netAmountMinor: number,
  minSpendMinor: number,
): { newContribution: number; taken: number } {
  let newContribution: number;
  if (netAmountMinor < minSpendMinor || netAmountMinor <= 0) newContribution = 0;
  else if (goal.type === 'purchase_count') newContribution = counted;
  else newContribution = Math.min(counted, netAmountMinor);
  return { newContribution, taken: counted - newContribution };
}

export function roundReversed(goal: Goal, roundTotal: number, taken: number): boolean {
  return roundTotal - taken < goal.target;
}

/** The feed's progress object of a goal offer for one cardholder (progress in the goal's units). */
export function feedProgress(
  goal: Goal,
  current: number,
): { current: number; target: number; unit: ProgressUnit } {
  return { current: Math.min(current, goal.target), target: goal.target, unit: unitOf(goal) };
}

/** A purchase counted toward a goal whose refunds changed: what matching knows of it. */
export interface CountedPurchase {
  transactionId: string;
  enrollmentId: string;
  goal: Goal;
  round: number;
  units: number;
  spend: number;
  /** The purchase's amount net of all its refunds (minor units) and the offer's min_spend. */
  netMinor: number;
  minSpend: number;
}

export interface RoundKey {
  enrollmentId: string;
  round: number;
}

export interface GoalRefundPlan {
  /** New contribution of each refunded purchase (only those that changed). */
  contributions: { transactionId: string; enrollmentId: string; units: number; spend: number }[];
  /** Open rounds that changed, with their new state. */
  states: Map<string, GoalState>;
  /** Rewarded rounds that fell below their target: their redemption is reversed. */
  reversed: RoundKey[];
  /** Reversed rounds whose remaining purchases now count in the open round `to`. */
  carried: (RoundKey & { to: number })[];
}

export const roundKey = (k: RoundKey) => compositeKey(k.enrollmentId, k.round);

/**
 * Refunds of counted purchases, in the order given: each takes its contribution back
 * (refundContribution; the spend shrinks to the net amount, or to nothing). In the open round the
 * progress falls. In a closed round the round's total falls; when a rewarded round falls below its
 * target its redemption is reversed, and what is left of it counts again in the open round (the
 * cardholder keeps the purchases that still count; if that takes the open round to its target,
 * its next counted purchase completes it).
 *
 * `rounds` holds the totals of the closed rounds named by `counted`; `rewarded` the closed rounds
 * whose redemption is still live, each with the target it was rewarded under (what its refunds
 * are judged against, whatever the offer's target is now). The inputs are not modified.
 */
export function planGoalRefunds(
  counted: readonly CountedPurchase[],
  states: ReadonlyMap<string, GoalState>,
  rounds: ReadonlyMap<string, { units: number; spend: number }>,
  rewarded: ReadonlyMap<string, number>,
): GoalRefundPlan {
  const plan: GoalRefundPlan = { contributions: [], states: new Map(), reversed: [], carried: [] };
  const totals = new Map([...rounds].map(([k, v]) => [k, { ...v }]));
  const live = new Map(rewarded);
  const movedTo = new Map<string, number>();
  const stateOf = (id: string) => plan.states.get(id) ?? states.get(id) ?? FIRST_ROUND;
  for (const c of counted) {
    const { newContribution, taken } = refundContribution(c.goal, c.units, c.netMinor, c.minSpend);
    const newSpend = newContribution === 0 ? 0 : Math.min(c.spend, Math.max(0, c.netMinor));
    const takenSpend = c.spend - newSpend;
    if (taken === 0 && takenSpend === 0) continue;
    plan.contributions.push({
      transactionId: c.transactionId,
      enrollmentId: c.enrollmentId,
      units: newContribution,
      spend: newSpend,
    });
    const state = stateOf(c.enrollmentId);
    const key = roundKey(c);
    const round = movedTo.get(key) ?? c.round;
    if (round === state.round) {
      plan.states.set(c.enrollmentId, {
        ...state,
        progress: Math.max(0, state.progress - taken),
        spend: Math.max(0, state.spend - takenSpend),
      });
      continue;
    }
    const total = totals.get(key) ?? { units: c.units, spend: c.spend };
    total.units -= taken;
    total.spend -= takenSpend;
    totals.set(key, total);
    const rewardedTarget = live.get(key);
    if (rewardedTarget !== undefined && total.units < rewardedTarget) {
      live.delete(key);
      plan.reversed.push({ enrollmentId: c.enrollmentId, round: c.round });
      plan.carried.push({ enrollmentId: c.enrollmentId, round: c.round, to: state.round });
      movedTo.set(key, state.round);
      plan.states.set(c.enrollmentId, {
        ...state,
        progress: state.progress + Math.max(0, total.units),
        spend: state.spend + Math.max(0, total.spend),
      });
    }
  }
  return plan;
}
