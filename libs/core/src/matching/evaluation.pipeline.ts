import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  addAllocation,
  allocate,
  AllocationResult,
  ChunkDeltas,
  EvaluatedOffer,
  giveBackAll,
  MatchingEnrollment,
  noDeltas,
  OfferTerms,
  RedemptionSource,
  ReversedRedemption,
  toPurchasesToMatch,
} from '@app/domain';
import { HoldoutKeys } from '../holdout-keys';
import { CandidateLookup, purchaseKey, Visible } from './candidate.lookup';
import { CardLifecyclePlanner, LifecyclePlan } from './card-lifecycle.planner';
import { EvaluationReports } from './evaluation-reports';
import { GoalProgressService, GoalRefunds } from './goal-progress.service';
import { ClaimedRow, MatchingRepository } from './matching.repository';
import { OfferVersionsReader } from './offer-versions.reader';
import { RedemptionWriter } from './redemption.writer';
import { RefundReversalPlanner, ReversalPlan } from './refund-reversal.planner';
import type { Reversal } from './reversals';

/**
 * How the pipeline runs. `write`: matching's chunk and a stored transaction's re-run: offers,
 * enrollments, chains and settlement entries are locked in id order and every decision is written
 * in the caller's transaction. Report mode (`write` false, simulate): the same reads without a
 * lock, nothing written; the caller runs it in a READ ONLY transaction.
 */
export interface PipelineRun {
  write: boolean;
  /**
   * Also evaluate, for the report, the offers of the merchant the cardholder could see but is not
   * actively enrolled in (not_enrolled, enrollment_inactive; never a winner). Simulate always;
   * matching only while its report is listened to.
   */
  explain?: boolean;
  /** Report mode: a refund that is not stored; its amount nets its purchase too (decimal text). */
  unstoredRefund?: string;
  /**
   * A stored transaction run again: goal offers it already counted toward are not candidates
   * (a purchase counts once toward a goal).
   */
  countedOnce?: boolean;
  /** Write mode: who the redemptions are made for (`claim` for a claim's re-run); default matching. */
  source?: RedemptionSource;
  /**
   * Report mode (an operator trying a draft or pending version): these terms replace the
   * offer's stored ones, and the cardholder is taken as enrolled in it (an active enrollment from
   * before the purchase, ASSUMED_ENROLLMENT) unless it is.
   */
  assume?: { offer: OfferTerms };
}

/** The enrollment id of PipelineRun.assume's enrollment (never stored). */
export const ASSUMED_ENROLLMENT = 'assumed';

/** Everything one run decided, for the entry point to answer with (and, in write mode, wrote). */
export interface PipelineResult {
  /** Purchases evaluated: purchases and card records decided now, merchant resolved or not. */
  purchases: ClaimedRow[];
  /** Of which those whose merchant resolved. */
  resolved: ClaimedRow[];
  allocation: AllocationResult;
  /** Reconsidered card redemptions that stand (by the id of the record decided now). */
  kept: Set<string>;
  /** Redemptions reversed (refunds, card lifecycle, goal rounds below target). */
  reversals: Reversal[];
  /** Final status of each row decided (rows deferred to a later run are absent). */
  statuses: Map<string, string>;
  lifecycle: LifecyclePlan;
  refunds: ReversalPlan;
  goalRefunds: GoalRefunds;
  /** Per evaluated transaction: every offer as evaluated, outcome and reasons (evaluation report). */
  report: Map<string, EvaluatedOffer[]>;
  deltas: ChunkDeltas;
  /** Write mode: the id of each redemption made, by transaction id. */
  redemptionIds: Map<string, string>;
}

/**
 * One evaluation, three entry points: candidates, every rule of libs/domain, the winner and the
 * planned writes of a set of transactions, whoever asks. MatchingService.matchChunk enters it with
 * the rows it claimed (`received`, SKIP LOCKED) and MatchingService.rematchStored with one stored
 * transaction taken FOR UPDATE, both in write mode; SimulationService with a request body, in
 * report mode. Nothing here is a rule: each step is a collaborator named after its rule (statements
 * in repositories, rules in libs/domain), and this class only orders them:
 *
 * 1. Card lifecycle (CardLifecyclePlanner; card-lifecycle.ts): the chains (locked, or read in
 *    report mode), folded; records decided now join the purchases, redemptions undone the reversals.
 * 2. Refunds (RefundReversalPlanner; refund-reversal.ts linkRefund, refunds.ts refundReverses,
 *    settlement-state.ts reversalOfEntry): each refund linked to its purchase; a processed
 *    purchase's redemption is reversed when the net amount falls below the offer's min_spend.
 * 3. Candidates (CandidateLookup): the cardholder's active enrollments at the resolved merchant
 *    (and, to explain, the offers it could see).
 * 4. Offers with a budget and the enrollments the run may change, locked in id order (so
 *    concurrent chunks cannot deadlock), and read.
 * 5. Give back (refund-reversal.ts giveBackAll); goal offers (GoalProgressService,
 *    goal-progress.ts) take refunded contributions back.
 * 6. Allocate (purchase-to-match.ts, matching.ts allocate, winner.ts), hearing the evaluation
 *    report; a reconsidered card redemption the clearing earns again stands.
 * 7. Write mode only: enrollment counts, goal progress, redemptions + settlement entries +
 *    deliveries, reversals, the chains, the statuses, and last the budget (guarded UPDATE).
 */
@Injectable()
export class EvaluationPipeline {
  constructor(
    private readonly repo: MatchingRepository,
    private readonly lifecycle: CardLifecyclePlanner,
    private readonly refundPlanner: RefundReversalPlanner,
    private readonly lookup: CandidateLookup,
    private readonly goals: GoalProgressService,
    private readonly writer: RedemptionWriter,
    private readonly reports: EvaluationReports,
    private readonly holdoutKeys: HoldoutKeys,
    private readonly versions: OfferVersionsReader,
  ) {}

  /** Runs `rows` (read by the entry point in `m`, its transaction) through matching. */
  async run(
    m: EntityManager,
    rows: ClaimedRow[],
    mode: PipelineRun,
    timings?: { locks?: number; locked?: number },
  ): Promise<PipelineResult> {
    const lock = mode.write;
    const run = { lock, unstoredRefund: mode.unstoredRefund ?? '0' };
    const explain = mode.explain ?? this.reports.listening;

    // 1. Card lifecycle.
    const chain = await this.lifecycle.plan(m, rows, lock);
    const purchases = [...rows.filter((r) => r.kind === 'purchase'), ...chain.decide];
    const refundRows = rows.filter((r) => r.kind === 'refund');

    // 2. Refunds (and the lifecycle's reversals).
    const planned = await this.refundPlanner.plan(m, refundRows, purchases, chain, run);
    let reversals = planned.reversals;
    const statuses = new Map([...chain.statuses, ...planned.statuses]);

    // 3. Candidates.
    for (const p of purchases) if (!p.merchant_id) statuses.set(p.id, 'merchant_unresolved');
    const resolved = purchases.filter((p) => p.merchant_id);
    const candidates = await this.lookup.candidates(m, resolved);
    if (mode.countedOnce) {
      const counted = new Set(
        (
          await this.goals.enrollmentsCounting(
            m,
            rows.map((r) => r.id),
          )
        ).map((e) => e.id),
      );
      for (const [k, list] of candidates)
        candidates.set(
          k,
          list.filter((c) => !counted.has(c.id)),
        );
    }
    this.lifecycle.addReconsidered(chain, candidates, purchaseKey);
    const seen = explain ? await this.lookup.visible(m, purchases, candidates) : NOTHING_VISIBLE;

    // 4. Lock the budgeted offers and the enrollments this run may change, in id order.
    const offerIds = new Set<string>(reversals.map((r) => r.row.offer_id));
    const enrollmentIds = new Set<string>(reversals.map((r) => r.row.cardholder_offer_id));
    for (const e of [
      ...[...candidates.values()].flat(),
      ...(await this.goals.enrollmentsCounting(m, planned.reviewed)),
    ]) {
      offerIds.add(e.offerId);
      enrollmentIds.add(e.id);
    }
    if (timings) timings.locks = performance.now();
    const offers = await this.repo.lockOffers(m, [...offerIds], lock);
    const enrollments = await this.repo.lockEnrollments(m, [...enrollmentIds], lock);
    if (timings) timings.locked = performance.now();
    for (const [id, o] of seen.offers) if (!offers.has(id)) offers.set(id, o);
    for (const [id, e] of seen.enrollments) if (!enrollments.has(id)) enrollments.set(id, e);
    // Purchases made before an offer's live terms took effect are judged by the version then.
    await this.versions.addEarlierTerms(m, offers, resolved);
    if (mode.assume && !mode.write && explain)
      assume(mode.assume.offer, purchases, candidates, seen, offers, enrollments);

    // 5. Give back: reversals return budget and a redemption of their enrollment.
    const goalRefunds = await this.goals.planRefunds(
      m,
      planned.reviewed,
      enrollments,
      run,
      refundRows,
    );
    reversals.push(...goalRefunds.reversals);
    const deltas = noDeltas();
    giveBackAll(reversals.map(reversedRedemption), offers, enrollments, deltas);

    // 6. Allocate, hearing every purchase's evaluations.
    const report = new Map<string, EvaluatedOffer[]>();
    const enrollmentIdsOf = (p: ClaimedRow) => [
      ...(p.merchant_id ? (candidates.get(purchaseKey(p)) ?? []) : []).map((e) => e.id),
      ...(seen.enrollmentsOf.get(p.id) ?? []),
    ];
    const history = await this.lookup.history(
      m,
      resolved,
      (p) => [
        ...enrollmentIdsOf(p).map((id) => enrollments.get(id)?.offerId ?? ''),
        ...(seen.unenrolled.get(p.id) ?? []),
      ],
      offers,
    );
    const allocation = allocate(
      toPurchasesToMatch(
        explain ? purchases : resolved,
        enrollmentIdsOf,
        history,
        seen.unenrolled,
        (p) => this.holdoutKeys.of(p.institution_id),
      ),
      offers,
      enrollments,
      explain ? (id, list) => report.set(id, list) : undefined,
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
    for (const id of chain.standing) statuses.set(id, 'matched');

    const result: PipelineResult = {
      purchases,
      resolved,
      allocation,
      kept,
      reversals,
      statuses,
      lifecycle: chain,
      refunds: planned,
      goalRefunds,
      report,
      deltas,
      redemptionIds: new Map(),
    };
    if (mode.write) await this.write(m, rows, result, offers, mode.source);
    if (this.reports.listening) this.reports.hear(result);
    return result;
  }

  /** 7. The run's writes, in the caller's transaction; the budget last. */
  private async write(
    m: EntityManager,
    rows: ClaimedRow[],
    r: PipelineResult,
    offers: ReadonlyMap<string, OfferTerms>,
    source: RedemptionSource = 'matching',
  ): Promise<void> {
    const now = rows[0].now;
    await this.repo.applyEnrollments(m, r.deltas.enrollments);
    await this.goals.write(m, r.goalRefunds.plan, r.allocation);
    const byId = new Map(rows.map((c) => [c.id, c]));
    for (const x of await this.writer.insert(
      m,
      r.allocation.redemptions,
      byId,
      offers,
      now,
      source,
    ))
      r.redemptionIds.set(x.transactionId, x.id);
    await this.writer.reverse(m, r.reversals, now);
    if (r.lifecycle.chains.length)
      await this.lifecycle.finish(
        m,
        r.lifecycle,
        new Set(r.allocation.redemptions.map((a) => a.transactionId)),
        r.kept,
        new Set(r.reversals.map((x) => x.row.redemption_id)),
      );
    // A decided clearing whose own identifier did not resolve is stored at its authorization's merchant.
    const merchantOf = new Map(r.purchases.map((p) => [p.id, p.merchant_id]));
    await this.repo.setStatuses(
      m,
      rows
        .filter((c) => r.statuses.has(c.id))
        .map((c) => ({
          id: c.id,
          institutionId: c.institution_id,
          receivedAt: c.received_at,
          status: r.statuses.get(c.id)!,
          merchantId: merchantOf.get(c.id) ?? c.merchant_id,
        })),
    );
    await this.repo.applyBudget(m, r.deltas.budget);
  }
}

/** PipelineRun.assume: the offer's terms in place, and each purchase's cardholder enrolled. */
function assume(
  offer: OfferTerms,
  purchases: ClaimedRow[],
  candidates: Map<string, { id: string; offerId: string }[]>,
  seen: Visible,
  offers: Map<string, OfferTerms>,
  enrollments: Map<string, MatchingEnrollment>,
): void {
  offers.set(offer.id, offer);
  for (const p of purchases) {
    const ids = [
      ...(p.merchant_id ? (candidates.get(purchaseKey(p)) ?? []) : []).map((c) => c.id),
      ...(seen.enrollmentsOf.get(p.id) ?? []),
    ];
    if (ids.some((id) => enrollments.get(id)?.offerId === offer.id)) continue;
    enrollments.set(ASSUMED_ENROLLMENT, {
      id: ASSUMED_ENROLLMENT,
      offerId: offer.id,
      status: 'active',
      redemptionCount: 0,
      addedAt: new Date(0),
    });
    seen.enrollmentsOf.set(p.id, [...(seen.enrollmentsOf.get(p.id) ?? []), ASSUMED_ENROLLMENT]);
    seen.unenrolled.set(
      p.id,
      (seen.unenrolled.get(p.id) ?? []).filter((id) => id !== offer.id),
    );
  }
}

const NOTHING_VISIBLE: Visible = {
  offers: new Map(),
  enrollments: new Map(),
  enrollmentsOf: new Map(),
  unenrolled: new Map(),
};

export const reversedRedemption = ({ row }: Reversal): ReversedRedemption => ({
  offerId: row.offer_id,
  enrollmentId: row.cardholder_offer_id,
  merchantFunded: Number(row.merchant_funded_amount),
});
