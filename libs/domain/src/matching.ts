import { applyRate, parseDecimal, toMinor } from './money';
import { inHoldout } from './holdout';
import { comparePreference } from './winner';
import { termsAt, type LiveVersion } from './offer-versions';
import { Qualification, qualificationReasons, QUALIFICATION_REASONS } from './qualification';
import { activationExpired } from './enrollment-activation';
import { audienceMatches } from './audience';
import { budgetTakes } from './budget';
import {
  afterCount,
  countPurchase,
  FIRST_ROUND,
  Goal,
  GoalCount,
  GoalState,
} from './goal-progress';

export { comparePreference } from './winner';

/**
 * Matching rules (docs/transactions.md) and reward computation, as pure functions. The worker's
 * chunk matcher and the simulate endpoint both decide with these, so a simulation explains
 * exactly what matching does.
 */

/** Why an enrollment did not (or would not) produce a redemption. */
export const NO_MATCH_REASONS = [
  'holdout',
  'not_enrolled',
  'enrollment_inactive',
  'enrolled_after_purchase',
  'merchant_mismatch',
  'offer_inactive',
  'outside_offer_window',
  'currency_mismatch',
  'below_min_spend',
  'redemption_limit_reached',
  'budget_exhausted',
  'better_offer_selected',
  ...QUALIFICATION_REASONS,
  'activation_expired',
  'audience_mismatch',
  'goal_not_reached',
  'goal_counts_at_clearing',
] as const;
export type NoMatchReason = (typeof NO_MATCH_REASONS)[number];

/** Offer statuses under which a purchase inside the window still earns the reward. */
const MATCHABLE_OFFER_STATUSES = ['active', 'ended'];

/** A fixed amount, or a percent of the purchase up to the amount (computeReward). */
export const REWARD_TYPES = ['fixed', 'percent'] as const;
export type RewardType = (typeof REWARD_TYPES)[number];

/** The terms of an offer, money in integer minor units of `currency`. */
export interface OfferTerms {
  id: string;
  merchantId: string;
  status: string;
  currency: string;
  minSpend: number;
  rewardType: RewardType;
  /** Fixed reward, or the cap of a percent reward. */
  cashbackAmount: number;
  /** Decimal text (e.g. "5" or "2.5000") for percent rewards, else null. */
  cashbackPercent: string | null;
  merchantFeeAmount: number;
  startsAt: Date;
  expiresAt: Date;
  /** Merchant-funded cap; null = unlimited. */
  budgetTotal: number | null;
  budgetUsed: number;
  maxRedemptionsPerCardholder: number;
  priority: number;
  /** Optional rules narrowing which purchases qualify (qualification.ts); absent = none. */
  qualification?: Qualification;
  /** Goal offers (goal-progress.ts): the reward needs several purchases; absent = one purchase. */
  goal?: Goal;
  /** Holdout share in basis points (holdout.ts); absent or 0 = none. */
  holdoutBps?: number;
  /**
   * When these terms took effect (their approval, offer-versions.ts); absent = they apply to
   * every purchase. An earlier purchase is judged by `versions` (termsAt).
   */
  termsFrom?: Date;
  /** The versions that have been live, read only when a purchase predates termsFrom. */
  versions?: LiveVersion[];
}

export interface MatchingEnrollment {
  id: string;
  offerId: string;
  status: string;
  redemptionCount: number;
  addedAt: Date;
  /** Goal offers: the open round (absent = the first round, nothing counted yet). */
  goal?: GoalState;
}

/** What matching knows of a purchase. */
export interface PurchaseFacts {
  /** Resolved merchant, or null when unresolved. */
  merchantId: string | null;
  /** Net amount (purchase minus its refunds) as decimal text in major units, as sent. */
  amount: string;
  /** Currency as sent, or null (then the amount is read in the offer's currency). */
  currency: string | null;
  transactedAt: Date;
  /** Card network as sent (qualification networks); absent = unknown. */
  network?: string | null;
  /** The program's IANA time zone (qualification days and hours); absent = UTC. */
  timeZone?: string;
  /** `in_store` or `online` as sent (qualification channels); absent = unknown. */
  channel?: string | null;
  /**
   * The cardholder's latest purchase at the purchase's merchant strictly before it (audience);
   * absent or null = none. Only looked up when a candidate offer has an audience.
   */
  lastPurchaseAtMerchant?: Date | null;
  /**
   * false for a card authorization decided at the swipe (reward_on authorization): goal offers
   * count a card chain once, on its clearing. Absent = counts.
   */
  countsTowardGoals?: boolean;
  /**
   * A further clearing of a card chain that had cleared before (decimal text: what it adds).
   * `amount` is then the chain's cleared total, which the offer's rules and reward judge; goal
   * offers count only what it adds: its amount toward a `cumulative_spend` goal, nothing more
   * toward a `purchase_count` goal (the chain was counted at its first clearing).
   */
  addedToChain?: string;
  /**
   * false when the purchase may count toward goals but earn nothing: a further clearing of a
   * chain whose goal round's reward stands (a chain holds one live reward). Absent = may earn.
   */
  rewardable?: boolean;
  /**
   * The cardholder and the institution's holdout key, to place the cardholder in offers' holdouts
   * (holdout.ts); absent = no holdout applies.
   */
  holdout?: { key: Buffer; cardholderToken: string };
}

/** A reward in the offer's minor units. merchantFunded = serviceRevenue + institutionPayout, always. */
export interface Reward {
  currency: string;
  purchaseAmount: number;
  cashback: number;
  merchantFunded: number;
  serviceRevenue: number;
  institutionPayout: number;
}

export interface Evaluation {
  offerId: string;
  enrollmentId: string | null;
  qualifies: boolean;
  reasons: NoMatchReason[];
  reward: Reward;
  /** Goal offers whose rules the purchase meets: how it counts in the open round. */
  goal?: GoalCount;
}

/**
 * Multiplies minor units by a percentage given as decimal text ("2.5" = 2.5 %), rounding half-up
 * at the minor unit, in exact integer arithmetic.
 */
export function applyPercent(minor: number, percent: string): number {
  const d = parseDecimal(percent.trim());
  if (!d || d.negative) throw new RangeError(`not a decimal percentage: ${percent}`);
  const { whole, frac } = d;
  const scale = 10n ** BigInt(frac.length + 2);
  const product = BigInt(minor) * BigInt(whole + frac);
  const sign = product < 0n ? -1n : 1n;
  const abs = product * sign;
  return Number(sign * ((2n * abs + scale) / (2n * scale)));
}

/**
 * The reward of a purchase of `purchaseMinor` (offer currency): fixed pays cashbackAmount,
 * percent pays cashbackPercent of the purchase capped at cashbackAmount; the merchant funds the
 * cashback plus the fee; the service keeps round(fee × shareRate); the institution gets the rest.
 */
export function computeReward(
  offer: OfferTerms,
  purchaseMinor: number,
  serviceShareRate: string | number,
): Reward {
  const purchase = Math.max(0, purchaseMinor);
  const cashback =
    offer.rewardType === 'percent'
      ? Math.min(offer.cashbackAmount, applyPercent(purchase, offer.cashbackPercent ?? '0'))
      : offer.cashbackAmount;
  const merchantFunded = cashback + offer.merchantFeeAmount;
  const serviceRevenue = applyRate(offer.merchantFeeAmount, serviceShareRate);
  return {
    currency: offer.currency,
    purchaseAmount: purchase,
    cashback,
    merchantFunded,
    serviceRevenue,
    institutionPayout: merchantFunded - serviceRevenue,
  };
}

/**
 * Evaluates one offer (and the cardholder's enrollment in it, or null when not enrolled) against
 * a purchase. Every failing rule is listed, in a stable order.
 */
export function evaluateOffer(
  purchase: PurchaseFacts,
  offer: OfferTerms,
  enrollment: MatchingEnrollment | null,
  serviceShareRate: string | number,
): Evaluation {
  const reasons: NoMatchReason[] = [];
  const purchaseMinor = toMinor(purchase.amount, offer.currency);
  const reward = computeReward(offer, purchaseMinor, serviceShareRate);
  // A held-out cardholder is never rewarded for the offer, whatever else holds (docs/lift.md).
  if (
    offer.holdoutBps &&
    purchase.holdout &&
    inHoldout(purchase.holdout.key, offer.id, purchase.holdout.cardholderToken, offer.holdoutBps)
  )
    reasons.push('holdout');
  if (!enrollment) {
    reasons.push('not_enrolled');
  } else {
    if (enrollment.status !== 'active') reasons.push('enrollment_inactive');
    if (enrollment.addedAt.getTime() > purchase.transactedAt.getTime())
      reasons.push('enrolled_after_purchase');
  }
  if (purchase.merchantId !== offer.merchantId) reasons.push('merchant_mismatch');
  if (!MATCHABLE_OFFER_STATUSES.includes(offer.status)) reasons.push('offer_inactive');
  const t = purchase.transactedAt.getTime();
  if (t < offer.startsAt.getTime() || t >= offer.expiresAt.getTime())
    reasons.push('outside_offer_window');
  if (purchase.currency !== null && purchase.currency !== offer.currency)
    reasons.push('currency_mismatch');
  if (purchaseMinor < offer.minSpend) reasons.push('below_min_spend');
  if (offer.qualification)
    reasons.push(
      ...qualificationReasons(
        offer.qualification,
        {
          amountMinor: purchaseMinor,
          transactedAt: purchase.transactedAt,
          channel: purchase.channel ?? null,
          network: purchase.network ?? null,
        },
        purchase.timeZone ?? 'UTC',
      ),
    );
  const q = offer.qualification;
  if (
    q?.activationDays !== undefined &&
    enrollment &&
    activationExpired(enrollment.addedAt, q.activationDays, purchase.transactedAt)
  )
    reasons.push('activation_expired');
  if (
    q?.audience &&
    !audienceMatches(q.audience, q.lookbackDays, purchase.transactedAt, {
      lastBefore: purchase.lastPurchaseAtMerchant ?? null,
    })
  )
    reasons.push('audience_mismatch');
  if (enrollment && enrollment.redemptionCount >= offer.maxRedemptionsPerCardholder)
    reasons.push('redemption_limit_reached');
  if (!budgetTakes(offer, reward.merchantFunded)) reasons.push('budget_exhausted');
  return {
    offerId: offer.id,
    enrollmentId: enrollment?.id ?? null,
    qualifies: reasons.length === 0,
    reasons,
    reward,
  };
}

/**
 * evaluateOffer, and for a goal offer the goal: a purchase that meets every rule (the budget
 * aside, which only bounds the reward) counts in the enrollment's open round; the offer qualifies
 * for a redemption only when the round reaches its target with it (`goal_not_reached` otherwise),
 * and the reward is computed on the round's counted spend. Every qualifying evaluation, goal or
 * not, then competes for the purchase's one redemption (selectBest). A card authorization decided
 * at the swipe neither counts nor completes a goal (`goal_counts_at_clearing`): its clearing does,
 * so a card chain counts once.
 */
export function evaluateCandidate(
  purchase: PurchaseFacts,
  offer: OfferTerms,
  enrollment: MatchingEnrollment | null,
  serviceShareRate: string | number,
): Evaluation {
  const e = evaluateOffer(purchase, offer, enrollment, serviceShareRate);
  if (offer.goal && purchase.countsTowardGoals === false)
    return { ...e, qualifies: false, reasons: [...e.reasons, 'goal_counts_at_clearing'] };
  if (!offer.goal || !enrollment || e.reasons.some((r) => r !== 'budget_exhausted')) return e;
  // A further clearing of a chain counted before adds nothing toward a purchase count.
  if (purchase.addedToChain !== undefined && offer.goal.type === 'purchase_count')
    return { ...e, qualifies: false, reasons: ['goal_not_reached'] };
  const count = countPurchase(
    offer.goal,
    enrollment.goal ?? FIRST_ROUND,
    toMinor(purchase.addedToChain ?? purchase.amount, offer.currency),
  );
  const reward = computeReward(offer, count.roundSpend, serviceShareRate);
  const reasons: NoMatchReason[] = !count.reached
    ? ['goal_not_reached']
    : !budgetTakes(offer, reward.merchantFunded)
      ? ['budget_exhausted']
      : [];
  return { ...e, qualifies: reasons.length === 0, reasons, reward, goal: count };
}

/** The evaluation that wins (at most one redemption per transaction), or null when none qualifies. */
export function selectBest(
  evaluations: Evaluation[],
  offers: ReadonlyMap<string, OfferTerms>,
): Evaluation | null {
  const qualifying = evaluations
    .filter((e) => e.qualifies)
    .map((e) => ({
      e,
      reward: e.reward,
      offerId: e.offerId,
      priority: offers.get(e.offerId)?.priority ?? 0,
    }));
  qualifying.sort(comparePreference);
  return qualifying[0]?.e ?? null;
}

export type ExplainedEvaluation = Evaluation & { outcome: 'match' | 'no_match' };

/**
 * Marks the winner `match` and every other qualifying offer `better_offer_selected`: the
 * evaluation report of matching and simulate (`best`: the winner already chosen, by default
 * selectBest's).
 */
export function explain(
  evaluations: Evaluation[],
  offers: ReadonlyMap<string, OfferTerms>,
  best: Evaluation | null = selectBest(evaluations, offers),
): ExplainedEvaluation[] {
  return evaluations.map((e) =>
    e === best
      ? { ...e, outcome: 'match' as const }
      : {
          ...e,
          qualifies: false,
          reasons: e.qualifies ? ['better_offer_selected' as const] : e.reasons,
          outcome: 'no_match' as const,
        },
  );
}

/** One purchase to allocate, with its candidate enrollments (any offer, any status). */
export interface PurchaseToMatch {
  transactionId: string;
  facts: PurchaseFacts;
  serviceShareRate: string;
  enrollmentIds: string[];
  /**
   * Offers the cardholder is not enrolled in, evaluated for the report only (`not_enrolled`: they
   * never qualify). Absent in matching unless its report is listened to.
   */
  unenrolledOfferIds?: string[];
}

/** One offer as a purchase was evaluated against it: the terms and enrollment state it saw. */
export interface EvaluatedOffer {
  offer: OfferTerms;
  /** The enrollment before this purchase, or null when not enrolled. */
  enrollment: MatchingEnrollment | null;
  evaluation: ExplainedEvaluation;
}

/** Hears each purchase's evaluations (the evaluation report), winner marked, as allocate decides. */
export type EvaluationListener = (transactionId: string, evaluated: EvaluatedOffer[]) => void;

export interface Allocation {
  transactionId: string;
  offerId: string;
  enrollmentId: string;
  reward: Reward;
  /** Goal offers: the round this redemption rewards, and the target it was reached under. */
  goalRound?: number;
  goalTarget?: number;
}

/** What a purchase added to a round of a goal offer's enrollment. */
export interface GoalContribution {
  transactionId: string;
  enrollmentId: string;
  round: number;
  units: number;
  spend: number;
}

export interface AllocationResult {
  redemptions: Allocation[];
  /** Purchases counted toward goal offers, whoever won them. */
  contributions: GoalContribution[];
  /** Enrollments whose open goal round changed, with their new state. */
  goalStates: Map<string, GoalState>;
  /** Budget to reserve per offer (minor units, merchant funded). */
  budgetDeltas: Map<string, number>;
  /** Enrollments whose count grows, with the status they end in. */
  enrollmentUpdates: Map<string, { delta: number; status: string }>;
}

/**
 * Allocates redemptions for purchases in the order given (the worker passes them by
 * transacted_at, then id), against the current (locked) offer and enrollment state: each purchase
 * takes its best qualifying offer, which then spends budget and a redemption of the enrollment
 * before the next purchase is evaluated. An enrollment reaching its offer's
 * max_redemptions_per_cardholder becomes `redeemed`. A purchase counts toward every goal offer
 * whose rules it meets, whoever wins it; a goal offer that reaches its target competes for the
 * purchase like any other offer, and its round starts over only when it wins (else the round stays
 * at its target and the next counted purchase completes it). The inputs are not modified.
 */
export function allocate(
  purchases: PurchaseToMatch[],
  offers: ReadonlyMap<string, OfferTerms>,
  enrollments: ReadonlyMap<string, MatchingEnrollment>,
  report?: EvaluationListener,
): AllocationResult {
  const offerState = new Map<string, OfferTerms>();
  const enrollmentState = new Map<string, MatchingEnrollment>();
  const budgetDeltas = new Map<string, number>();
  const enrollmentUpdates = new Map<string, { delta: number; status: string }>();
  const redemptions: Allocation[] = [];
  const contributions: GoalContribution[] = [];
  const goalStates = new Map<string, GoalState>();
  const offerOf = (id: string) => offerState.get(id) ?? offers.get(id);
  const enrollmentOf = (id: string) => enrollmentState.get(id) ?? enrollments.get(id);

  for (const p of purchases) {
    const seen: { offer: OfferTerms; enrollment: MatchingEnrollment | null }[] = [];
    const evaluations: Evaluation[] = [];
    // Each offer as it stood when the purchase was made (offer-versions.ts termsAt).
    const at = (o: OfferTerms | undefined) => o && termsAt(o, p.facts.transactedAt);
    for (const enrollmentId of p.enrollmentIds) {
      const enrollment = enrollmentOf(enrollmentId);
      const offer = enrollment && at(offerOf(enrollment.offerId));
      if (!enrollment || !offer) continue;
      evaluations.push(evaluateCandidate(p.facts, offer, enrollment, p.serviceShareRate));
      if (report) seen.push({ offer, enrollment });
    }
    for (const offerId of p.unenrolledOfferIds ?? []) {
      const offer = at(offerOf(offerId));
      if (!offer) continue;
      evaluations.push(evaluateCandidate(p.facts, offer, null, p.serviceShareRate));
      seen.push({ offer, enrollment: null });
    }
    const best = p.facts.rewardable === false ? null : selectBest(evaluations, offers);
    if (report)
      report(
        p.transactionId,
        explain(evaluations, offers, best).map((evaluation, i) => ({ ...seen[i], evaluation })),
      );
    for (const e of evaluations) {
      if (!e.goal || !e.enrollmentId) continue;
      const g = e.goal;
      contributions.push({
        transactionId: p.transactionId,
        enrollmentId: e.enrollmentId,
        round: g.round,
        units: g.units,
        spend: g.spend,
      });
      const state = afterCount(g, e === best);
      goalStates.set(e.enrollmentId, state);
      const enrollment = enrollmentOf(e.enrollmentId)!;
      enrollmentState.set(e.enrollmentId, { ...enrollment, goal: state });
    }
    if (!best || !best.enrollmentId) continue;
    const offer = offerOf(best.offerId)!;
    const enrollment = enrollmentOf(best.enrollmentId)!;
    const funded = best.reward.merchantFunded;
    offerState.set(offer.id, { ...offer, budgetUsed: offer.budgetUsed + funded });
    budgetDeltas.set(offer.id, (budgetDeltas.get(offer.id) ?? 0) + funded);
    const count = enrollment.redemptionCount + 1;
    const status = count >= offer.maxRedemptionsPerCardholder ? 'redeemed' : enrollment.status;
    enrollmentState.set(enrollment.id, { ...enrollment, redemptionCount: count, status });
    const prev = enrollmentUpdates.get(enrollment.id);
    enrollmentUpdates.set(enrollment.id, { delta: (prev?.delta ?? 0) + 1, status });
    redemptions.push({
      transactionId: p.transactionId,
      offerId: offer.id,
      enrollmentId: enrollment.id,
      reward: best.reward,
      ...(best.goal ? { goalRound: best.goal.round, goalTarget: at(offer)!.goal!.target } : {}),
    });
  }
  return { redemptions, contributions, goalStates, budgetDeltas, enrollmentUpdates };
}
