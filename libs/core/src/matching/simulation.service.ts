import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  ChainAction,
  ChainState,
  authorizationExpired,
  chainStep,
  isLifecycleKind,
  RewardOn,
  evaluateCandidate,
  explain,
  Evaluation,
  FIRST_ROUND,
  goalOf,
  giveBack,
  planGoalRefunds,
  roundKey,
  toMinor,
  MatchingEnrollment,
  netAmount,
  NoMatchReason,
  OfferTerms,
  refundReverses,
  PROGRAM_DEFAULTS,
  sourcesOf,
  toMajor,
  TransactionEvent,
  unitOf,
} from '@app/domain';
import { MerchantRef, MerchantResolver } from '../merchants/merchant-resolver';
import { toOfferTerms } from './offer-row';
import { SimulationRepository } from './simulation.repository';
import { CardLifecycleRepository } from './card-lifecycle.repository';

export interface SimulatedEvaluation {
  offer_id: string;
  cardholder_offer_id: string | null;
  outcome: 'match' | 'no_match';
  reasons: NoMatchReason[];
  currency: string;
  cashback_amount: number;
  institution_payout_amount: number;
  /** Goal offers: how the purchase would count in the cardholder's open round. */
  goal?: SimulatedGoal;
}

export interface SimulatedGoal {
  unit: 'purchases' | 'amount';
  /** What the purchase would add (major units for amounts); 0 when it does not count. */
  counts: number;
  current: number;
  target: number;
  completes: boolean;
}

export interface SimulatedRefund {
  original_found: boolean;
  redemption_id: string | null;
  would_reverse: boolean;
  /** Goal offers the purchase counted toward: what the refund would take back. */
  goals?: SimulatedGoalRefund[];
}

export interface SimulatedGoalRefund {
  offer_id: string;
  cardholder_offer_id: string;
  unit: 'purchases' | 'amount';
  /** What the refund would take back from the purchase's contribution (major units for amounts). */
  takes_back: number;
  /** The round's live redemption, when the purchase is in a rewarded round. */
  redemption_id: string | null;
  /** True when the refund would take that rewarded round below its target. */
  would_reverse: boolean;
}

/** The offer that would get the purchase's one redemption (libs/domain winner.ts). */
export interface SimulatedWinner {
  offer_id: string;
  cardholder_offer_id: string | null;
  currency: string;
  institution_payout_amount: number;
  /** The rule, in words: what decided among the qualifying offers. */
  rule: string;
}

/**
 * A card lifecycle record (docs/transactions.md): its chain as it stands, the step of the state
 * table it would take, and the outcome. `would_match_at_clearing`: an authorization under
 * reward_on=clearing that qualifies (nothing is rewarded until its clearing, on the cleared
 * amount).
 */
export interface SimulatedLifecycle {
  reward_on: RewardOn;
  chain_state: ChainState;
  action: ChainAction;
  outcome: 'match' | 'no_match' | 'would_match_at_clearing' | 'would_reverse' | 'no_change';
}

export interface SimulationResult {
  matched: boolean;
  merchant: { id: string; name: string } | null;
  duplicate: boolean;
  evaluations: SimulatedEvaluation[];
  /** Purchases: the winner, or null when no offer qualifies. */
  winner?: SimulatedWinner | null;
  refund?: SimulatedRefund;
  /** Authorizations, clearings and voids only. */
  lifecycle?: SimulatedLifecycle;
}

export const WINNER_RULE =
  'highest institution payout for this purchase, then higher priority, then lower offer id';

/** Offers and the cardholder's enrollment in each, at most this many evaluated. */
const MAX_EVALUATIONS = 100;

/**
 * POST /api/v1/transactions/simulate: what matching would decide for this event now, and why,
 * with the same pure rules the worker allocates with (libs/domain). Read-only: nothing is written,
 * no budget is reserved, no webhook or settlement entry is created.
 *
 * Evaluated: every offer of the resolved merchant offered to the institution (not enrolled →
 * `not_enrolled`) and every enrollment of the cardholder in an offer of that merchant; when the
 * merchant is unresolved, the cardholder's active enrollments (each `merchant_mismatch`).
 */
@Injectable()
export class SimulationService {
  constructor(
    private readonly repo: SimulationRepository,
    private readonly merchants: MerchantResolver,
    private readonly chains: CardLifecycleRepository,
    private readonly db: DataSource,
  ) {}

  async simulate(institutionId: string, event: TransactionEvent): Promise<SimulationResult> {
    const [duplicate, merchant] = await Promise.all([
      this.repo.isStored(institutionId, event.transactionRef),
      this.merchants.resolveTransaction(event),
    ]);
    const base = {
      merchant: merchant && { id: merchant.id, name: merchant.name },
      duplicate,
    };
    if (event.kind === 'refund')
      return {
        ...base,
        matched: false,
        evaluations: [],
        refund: await this.refund(institutionId, event),
      };
    if (isLifecycleKind(event.kind))
      return { ...base, ...(await this.lifecycle(institutionId, event, merchant)) };
    return { ...base, ...(await this.purchase(institutionId, event, merchant)) };
  }

  /**
   * A lifecycle record: the step its chain would take. A void, or a record the table ignores, is
   * not evaluated; an authorization under reward_on=clearing is evaluated as its clearing would
   * be at this amount but rewards nothing now (`matched: false`).
   */
  private async lifecycle(
    institutionId: string,
    event: TransactionEvent,
    merchant: MerchantRef | null,
  ): Promise<Pick<SimulationResult, 'matched' | 'evaluations' | 'winner' | 'lifecycle'>> {
    const kind = event.kind as 'authorization' | 'clearing' | 'authorization_reversal';
    const ref = kind === 'authorization' ? event.transactionRef : event.originalTransactionRef!;
    const chain = await this.chains.chainOf(this.db, institutionId, ref, sourcesOf('reversed'));
    // An authorization sent after its expiry folds with it at once (chainEvents): nothing happens.
    const late =
      kind === 'authorization' &&
      authorizationExpired(
        new Date(event.transactedAt),
        chain.authorization_expiry_days,
        new Date(),
      );
    // A clearing or void naming a record that is not an authorization joins no chain.
    const step =
      late || (kind !== 'authorization' && chain.names_other)
        ? { action: 'ignore' as const }
        : chainStep(chain.reward_on, chain.state, kind);
    const base = { reward_on: chain.reward_on, chain_state: chain.state, action: step.action };
    if (step.action === 'reverse' || step.action === 'ignore' || kind === 'authorization_reversal')
      return {
        matched: false,
        evaluations: [],
        lifecycle: {
          ...base,
          outcome: step.action === 'reverse' && chain.live ? 'would_reverse' : 'no_change',
        },
      };
    // An authorization decided at the swipe does not count toward goals (its clearing will). A
    // decision on a chain that holds a live redemption reconsiders it: its enrollment is
    // evaluated with that redemption given back, as matching does.
    const p = await this.purchase(
      institutionId,
      event,
      merchant,
      step.action === 'record' || kind !== 'authorization',
      chain.live_redemption,
    );
    if (step.action === 'record')
      return {
        ...p,
        matched: false,
        lifecycle: { ...base, outcome: p.matched ? 'would_match_at_clearing' : 'no_match' },
      };
    return { ...p, lifecycle: { ...base, outcome: p.matched ? 'match' : 'no_match' } };
  }

  private async purchase(
    institutionId: string,
    event: TransactionEvent,
    merchant: MerchantRef | null,
    countsTowardGoals = true,
    givenBack: { enrollmentId: string; merchantFunded: number } | null = null,
  ): Promise<Pick<SimulationResult, 'matched' | 'evaluations' | 'winner'>> {
    const [rows, program, refunded, lastPurchase] = await Promise.all([
      this.repo.offersToEvaluate(
        institutionId,
        event.cardholderToken,
        merchant?.id ?? null,
        MAX_EVALUATIONS,
      ),
      this.repo.program(institutionId),
      this.repo.refunded(institutionId, event.transactionRef),
      this.repo.lastPurchaseBefore(institutionId, event, merchant?.id ?? null),
    ]);
    const shareRate = program?.rate ?? PROGRAM_DEFAULTS.serviceShareRate;
    const facts = {
      merchantId: merchant?.id ?? null,
      amount: netAmount(event.amount, [refunded]),
      currency: event.currency,
      transactedAt: new Date(event.transactedAt),
      network: event.network,
      timeZone: program?.time_zone ?? 'UTC',
      channel: event.channel ?? null,
      lastPurchaseAtMerchant: lastPurchase,
      ...(countsTowardGoals ? {} : { countsTowardGoals: false }),
    };
    const offers = new Map<string, OfferTerms>();
    const evaluations = rows.map((row) => {
      let offer = toOfferTerms(row);
      let enrollment: MatchingEnrollment | null = row.enrollment_id
        ? {
            id: row.enrollment_id,
            offerId: row.id,
            status: row.enrollment_status!,
            redemptionCount: row.redemption_count!,
            addedAt: row.added_at!,
            goal: {
              round: row.goal_round ?? 1,
              progress: Number(row.goal_progress ?? 0),
              spend: Number(row.goal_spend ?? 0),
            },
          }
        : null;
      // A card chain's live redemption reconsidered by its clearing is given back first (its
      // budget and its count), by the rule matching applies.
      if (enrollment && enrollment.id === givenBack?.enrollmentId)
        ({ offer, enrollment } = giveBack(offer, enrollment, givenBack.merchantFunded));
      offers.set(offer.id, offer);
      return { e: evaluateCandidate(facts, offer, enrollment, shareRate), offer, enrollment };
    });
    const goals = new Map(
      evaluations.map(({ e, offer, enrollment }) => [e, simulatedGoal(e, offer, enrollment)]),
    );
    const explained = explain(
      evaluations.map(({ e }) => e),
      offers,
    );
    const best = explained.find((e) => e.outcome === 'match');
    return {
      matched: !!best,
      winner: best
        ? {
            offer_id: best.offerId,
            cardholder_offer_id: best.enrollmentId,
            currency: best.reward.currency,
            institution_payout_amount: toMajor(best.reward.institutionPayout, best.reward.currency),
            rule: WINNER_RULE,
          }
        : null,
      evaluations: explained.map((e, i) => ({
        offer_id: e.offerId,
        cardholder_offer_id: e.enrollmentId,
        outcome: e.outcome,
        reasons: e.reasons,
        currency: e.reward.currency,
        cashback_amount: toMajor(e.reward.cashback, e.reward.currency),
        institution_payout_amount: toMajor(e.reward.institutionPayout, e.reward.currency),
        ...(goals.get(evaluations[i].e) ? { goal: goals.get(evaluations[i].e) } : {}),
      })),
    };
  }

  /** Whether this refund, stored now, would reverse its purchase's redemption. */
  private async refund(institutionId: string, event: TransactionEvent): Promise<SimulatedRefund> {
    const t = await this.repo.purchaseOfRefund(
      institutionId,
      event.originalTransactionRef,
      event.transactionRef,
    );
    if (!t) return { original_found: false, redemption_id: null, would_reverse: false };
    const net = netAmount(t.amount, [t.refunded, event.amount]);
    const goals = await this.goalRefunds(t.id, net);
    const withGoals = goals.length ? { goals } : {};
    if (!t.redemption_id || !(sourcesOf('reversed') as string[]).includes(t.redemption_status!)) {
      return {
        original_found: true,
        redemption_id: t.redemption_id,
        would_reverse: false,
        ...withGoals,
      };
    }
    return {
      original_found: true,
      redemption_id: t.redemption_id,
      would_reverse: refundReverses(net, t.currency!, Number(t.min_spend)),
      ...withGoals,
    };
  }

  /** The goal offers' side of a refund, decided by the rule matching applies (planGoalRefunds). */
  private async goalRefunds(purchaseId: string, net: string): Promise<SimulatedGoalRefund[]> {
    const rows = await this.repo.goalContributionsOf(purchaseId, sourcesOf('reversed'));
    return rows.map((r) => {
      const goal = goalOf(r.goal_type, r.goal_target)!;
      const key = { enrollmentId: r.cardholder_offer_id, round: r.round };
      const units = Number(r.units);
      const plan = planGoalRefunds(
        [
          {
            transactionId: purchaseId,
            enrollmentId: r.cardholder_offer_id,
            goal,
            round: r.round,
            units,
            spend: Number(r.spend),
            netMinor: toMinor(net, r.currency),
            minSpend: Number(r.min_spend),
          },
        ],
        new Map([
          [
            r.cardholder_offer_id,
            {
              round: r.open_round,
              progress: Number(r.goal_progress),
              spend: Number(r.goal_spend),
            },
          ],
        ]),
        new Map([[roundKey(key), { units: Number(r.round_units), spend: Number(r.round_spend) }]]),
        new Map(
          r.redemption_id && r.round !== r.open_round
            ? [[roundKey(key), Number(r.redemption_goal_target)]]
            : [],
        ),
      );
      const taken = units - (plan.contributions[0]?.units ?? units);
      const unit = unitOf(goal);
      return {
        offer_id: r.offer_id,
        cardholder_offer_id: r.cardholder_offer_id,
        unit,
        takes_back: unit === 'amount' ? toMajor(taken, r.currency) : taken,
        redemption_id: r.round !== r.open_round ? r.redemption_id : null,
        would_reverse: plan.reversed.length > 0,
      };
    });
  }
}

/** A goal offer's evaluation in the simulation's words (amounts in major units). */
function simulatedGoal(
  e: Evaluation,
  offer: OfferTerms,
  enrollment: MatchingEnrollment | null,
): SimulatedGoal | undefined {
  if (!offer.goal) return undefined;
  const unit = unitOf(offer.goal);
  const major = (v: number) => (unit === 'amount' ? toMajor(v, offer.currency) : v);
  const state = enrollment?.goal ?? FIRST_ROUND;
  return {
    unit,
    counts: major(e.goal?.units ?? 0),
    current: major(state.progress),
    target: major(offer.goal.target),
    completes: e.goal?.reached ?? false,
  };
}
