import { Injectable } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { DataSource, EntityManager } from 'typeorm';
import {
  ChainAction,
  ChainState,
  Evaluation,
  FIRST_ROUND,
  isLifecycleKind,
  LIFECYCLE_DEFAULTS,
  MatchingEnrollment,
  NoMatchReason,
  OfferTerms,
  RewardOn,
  roundKey,
  toMajor,
  TransactionEvent,
  unitOf,
} from '@app/domain';
import { MAX_EXPLAINED } from './candidate.lookup';
import {
  ASSUMED_ENROLLMENT,
  EvaluationPipeline,
  PipelineResult,
  PipelineRun,
} from './evaluation.pipeline';
import { ClaimedRow, MatchingRepository } from './matching.repository';
import { SimulationRepository } from './simulation.repository';
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

/**
 * POST /api/v1/transactions/simulate: what matching would decide for this event now, and why. It
 * is matching's own EvaluationPipeline entered with the request body in report mode: the event is
 * read as the claim reads a stored row (merchant, refunds, program), then the card lifecycle,
 * refunds, candidates, rules, winner and goal progress run as in a chunk, in a READ ONLY
 * transaction that takes no row or advisory lock and writes nothing (no budget reserved, no
 * webhook or settlement entry). This class only words the result.
 *
 * Evaluated: every offer of the resolved merchant offered to the institution (not enrolled →
 * `not_enrolled`) and every enrollment of the cardholder in an offer of that merchant; when the
 * merchant is unresolved, the cardholder's active enrollments (each `merchant_mismatch`).
 */
@Injectable()
export class SimulationService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: SimulationRepository,
    private readonly matching: MatchingRepository,
    private readonly pipeline: EvaluationPipeline,
  ) {}

  /**
   * `within`: the caller's transaction (a claim judged on its evidence), in which this run reads
   * as in its own and writes nothing; without it, a READ ONLY transaction of its own.
   */
  simulate(
    institutionId: string,
    event: TransactionEvent,
    within?: EntityManager,
    /** An operator trying an offer's draft or pending version (PipelineRun.assume). */
    assume?: PipelineRun['assume'],
  ): Promise<SimulationResult> {
    const run = async (m: EntityManager): Promise<SimulationResult> => {
      const [row, duplicate] = [
        await this.matching.eventRow(m, randomUUID(), institutionId, event),
        await this.repo.isStored(m, institutionId, event.transactionRef),
      ];
      const base = {
        merchant: row.merchant_name ? { id: row.merchant_id!, name: row.merchant_name } : null,
        duplicate,
      };
      const r = await this.pipeline.run(m, [row], {
        write: false,
        explain: true,
        // A refund stored already nets its purchase in the stored sums.
        unstoredRefund: event.kind === 'refund' && !duplicate ? row.amount : '0',
        assume,
      });
      if (event.kind === 'refund')
        return {
          ...base,
          matched: false,
          evaluations: [],
          refund: await this.refund(m, row.id, r),
        };
      if (isLifecycleKind(event.kind)) return { ...base, ...lifecycle(row, r) };
      return { ...base, ...purchase(r, row.id) };
    };
    if (within) return run(within);
    return this.db.transaction(async (m) => {
      await m.query('SET TRANSACTION READ ONLY');
      return run(m);
    });
  }

  /** Whether this refund, stored now, would reverse its purchase's redemption. */
  private async refund(
    m: EntityManager,
    refundId: string,
    r: PipelineResult,
  ): Promise<SimulatedRefund> {
    const purchaseId = r.refunds.originals.get(refundId);
    if (!purchaseId) return { original_found: false, redemption_id: null, would_reverse: false };
    const redemptionId = await this.repo.redemptionOf(m, purchaseId);
    const goals = goalRefunds(r);
    return {
      original_found: true,
      redemption_id: redemptionId,
      would_reverse: r.reversals.some((x) => x.row.redemption_id === redemptionId),
      ...(goals.length ? { goals } : {}),
    };
  }
}

/**
 * A lifecycle record: the step its chain would take. A void, or a record the table ignores, is
 * not evaluated; an authorization under reward_on=clearing is evaluated as its clearing would be
 * at this amount but rewards nothing now (`matched: false`).
 */
function lifecycle(
  row: ClaimedRow,
  r: PipelineResult,
): Pick<SimulationResult, 'matched' | 'evaluations' | 'winner' | 'lifecycle'> {
  const ref = row.kind === 'authorization' ? row.transaction_ref : row.original_transaction_ref;
  const chain = r.lifecycle.read.find((c) => c.authorization_ref === ref);
  const action = r.lifecycle.actions.get(row.id) ?? 'ignore';
  const base = {
    reward_on: chain?.reward_on ?? LIFECYCLE_DEFAULTS.rewardOn,
    chain_state: chain?.state ?? 'none',
    action,
  };
  if (action === 'reverse' || action === 'ignore' || row.kind === 'authorization_reversal')
    return {
      matched: false,
      evaluations: [],
      lifecycle: { ...base, outcome: r.reversals.length ? 'would_reverse' : 'no_change' },
    };
  const p = purchase(r, row.id);
  if (r.lifecycle.atClearing.has(row.id))
    return {
      ...p,
      matched: false,
      lifecycle: { ...base, outcome: p.matched ? 'would_match_at_clearing' : 'no_match' },
    };
  return { ...p, lifecycle: { ...base, outcome: p.matched ? 'match' : 'no_match' } };
}

/** A purchase's evaluation report in simulate's words: by offer id, the winner marked. */
function purchase(
  r: PipelineResult,
  id: string,
): Pick<SimulationResult, 'matched' | 'evaluations' | 'winner'> {
  const evaluated = [...(r.report.get(id) ?? [])]
    .sort((a, b) => (a.offer.id < b.offer.id ? -1 : a.offer.id > b.offer.id ? 1 : 0))
    .slice(0, MAX_EXPLAINED);
  const best = evaluated.find((x) => x.evaluation.outcome === 'match')?.evaluation;
  return {
    matched: !!best,
    winner: best
      ? {
          offer_id: best.offerId,
          cardholder_offer_id: storedEnrollment(best.enrollmentId),
          currency: best.reward.currency,
          institution_payout_amount: toMajor(best.reward.institutionPayout, best.reward.currency),
          rule: WINNER_RULE,
        }
      : null,
    evaluations: evaluated.map(({ offer, enrollment, evaluation: e }) => {
      const goal = simulatedGoal(e, offer, enrollment);
      return {
        offer_id: e.offerId,
        cardholder_offer_id: storedEnrollment(e.enrollmentId),
        outcome: e.outcome,
        reasons: e.reasons,
        currency: e.reward.currency,
        cashback_amount: toMajor(e.reward.cashback, e.reward.currency),
        institution_payout_amount: toMajor(e.reward.institutionPayout, e.reward.currency),
        ...(goal ? { goal } : {}),
      };
    }),
  };
}

/** An enrollment id as the answer shows it: none for the enrollment an offer simulate assumes. */
function storedEnrollment(id: string | null): string | null {
  return id === ASSUMED_ENROLLMENT ? null : id;
}

/** The goal offers' side of a refund, as the pipeline planned it (planGoalRefunds). */
function goalRefunds(r: PipelineResult): SimulatedGoalRefund[] {
  const { plan, counted, rewardedRounds } = r.goalRefunds;
  return [...counted]
    .sort((a, b) => (a.offerId < b.offerId ? -1 : a.offerId > b.offerId ? 1 : 0))
    .map((c) => {
      const key = roundKey(c);
      const left = plan.contributions.find(
        (x) => x.transactionId === c.transactionId && x.enrollmentId === c.enrollmentId,
      );
      const taken = c.units - (left?.units ?? c.units);
      const unit = unitOf(c.goal);
      return {
        offer_id: c.offerId,
        cardholder_offer_id: c.enrollmentId,
        unit,
        takes_back: unit === 'amount' ? toMajor(taken, c.currency) : taken,
        redemption_id: rewardedRounds.get(key) ?? null,
        would_reverse: plan.reversed.some((k) => roundKey(k) === key),
      };
    });
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
