/**
 * Goal offers: qualifying purchases made after the add and inside the offer window add to the
 * enrollment's progress; the purchase that reaches the target earns the reward and the next round
 * starts from zero (when max_redemptions_per_cardholder allows another). A refund of a counted
 * purchase takes its contribution back; when that takes a rewarded round below its target, the
 * round's redemption is reversed.
 */

export const GOAL_TYPES = ['purchase_count', 'cumulative_spend'] as const;
export type GoalType = (typeof GOAL_TYPES)[number];

export interface Goal {
  type: GoalType;
  /** Purchases, or minor units of the offer currency for cumulative spend. */
  target: number;
}

export type ProgressUnit = 'purchases' | 'amount';

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

/**
 * A refund of a purchase counted in a round: the purchase's contribution shrinks to what is left
 * of it (nothing once the net amount is below min_spend, as such a purchase would not have counted). In an open round the progress falls by the difference; in a rewarded round, the round is
 * reversed when its total falls below the target.
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

/** The feed's progress object of a goal offer for one cardholder. */
export function feedProgress(
  goal: Goal,
  current: number,
): { current: number; target: number; unit: ProgressUnit } {
  return { current: Math.min(current, goal.target), target: goal.target, unit: unitOf(goal) };
}
