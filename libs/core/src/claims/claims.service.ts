import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { KeysetAfter } from '@app/db';
import {
  awaitsOperator,
  claimBarrier,
  ClaimDecision,
  ClaimDecisionInput,
  ClaimStatus,
  decideApproval,
  decideEvidence,
  decideStored,
  EvaluatedOffer,
  evidenceEventBody,
  OfferVerdict,
  parseTransactionEvent,
  PurchaseEvidence,
  repeatReevaluates,
  TransactionEvent,
  withinClaimWindow,
} from '@app/domain';
import { TransactionStore } from '../ingestion/transaction-store';
import { MatchingService, StoredMatch } from '../matching/matching.service';
import { SimulationService } from '../matching/simulation.service';
import { WebhookEvents } from '../webhooks/webhook-events';
import { ClaimedTransaction, ClaimRow, ClaimsRepository } from './claims.repository';

/** A claim as filed (validated by the api: the evidence already parsed as a transaction event). */
export interface NewClaim {
  institutionId: string;
  offerId: string;
  transactionRef: string;
  cardholderToken: string;
  /** The purchase evidence as sent, and as the transaction event it stands for. */
  evidence: { sent: PurchaseEvidence; event: TransactionEvent } | null;
  note: string | null;
}

export type FileOutcome =
  | { kind: 'claim'; claim: ClaimRow; created: boolean }
  | { kind: 'offer_not_found' }
  | { kind: 'transaction_not_found' };

export type DecisionOutcome =
  | { kind: 'decided'; claim: ClaimRow }
  | { kind: 'not_found' }
  | { kind: 'claim_decided'; claim: ClaimRow }
  /** Budget, limits or another rule refused the approval: its code; the claim stays pending. */
  | { kind: 'refused'; code: string };

/** Thrown inside an approval's transaction to undo it (the purchase stored for it included). */
class Refused extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/**
 * Claims for missing rewards (docs/claims.md), decided at once by matching itself: a stored
 * purchase is run again through the EvaluationPipeline in write mode (MatchingService.rematchStored,
 * in the claim's transaction, its redemption made with source `claim`); a purchase that is not
 * stored is judged on its evidence by simulate's evaluation (report mode). The rules particular to
 * claims (barriers, window, how an evaluation decides a claim) are libs/domain claims.ts; nothing
 * of matching is decided here.
 *
 * One claim per (institution, offer, transaction_ref): the claim's key is locked for the length
 * of its transaction, so a repeat (or the same claim at the same moment) reads the first. One
 * redemption per transaction: the stored record is taken FOR UPDATE before it is judged, and a
 * live redemption found under that lock answers `already_rewarded`.
 */
@Injectable()
export class ClaimsService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: ClaimsRepository,
    private readonly matching: MatchingService,
    private readonly simulation: SimulationService,
    private readonly store: TransactionStore,
    private readonly webhooks: WebhookEvents,
  ) {}

  async file(c: NewClaim): Promise<FileOutcome> {
    if (!(await this.repo.offered(c.institutionId, c.offerId))) return { kind: 'offer_not_found' };
    return this.db.transaction(async (m) => {
      await this.repo.lockKey(m, c.institutionId, c.offerId, c.transactionRef);
      const first = await this.repo.findByKey(m, c.institutionId, c.offerId, c.transactionRef);
      if (first && !repeatReevaluates({ status: first.status, decidedBy: first.decided_by }))
        return { kind: 'claim', claim: first, created: false };
      // A repeat without evidence is judged on the first claim's, if it had some.
      const decision = await this.judge(
        m,
        first && !c.evidence ? { ...c, evidence: storedEvidence(first) } : c,
      );
      if (!decision) return { kind: 'transaction_not_found' };
      const write = { ...decision, decidedBy: decidedBy(decision.status) };
      if (first)
        return { kind: 'claim', claim: await this.repo.decide(m, first.id, write), created: false };
      const claim = await this.repo.insert(
        m,
        {
          institutionId: c.institutionId,
          offerId: c.offerId,
          transactionRef: c.transactionRef,
          cardholderToken: c.cardholderToken,
          purchase: c.evidence ? evidenceJson(c.evidence.sent) : null,
          note: c.note,
        },
        write,
      );
      return { kind: 'claim', claim, created: true };
    });
  }

  /** The decision table (docs/claims.md); null when the purchase is not stored and has no evidence. */
  private async judge(m: EntityManager, c: NewClaim): Promise<ClaimDecision | null> {
    const now = new Date();
    const windowDays = await this.repo.windowDays(m, c.institutionId);
    const t = await this.repo.lockTransaction(m, c.institutionId, c.transactionRef);
    if (t) {
      const live = await this.matching.liveRedemption(m, t.id);
      if (live)
        return decideStored(c.offerId, { alreadyRewarded: live, redemption: null, verdicts: [] });
      const barrier = claimBarrier(record(t), c.cardholderToken, windowDays, now);
      if (barrier) return { status: 'rejected', reasons: [barrier], redemptionId: null };
      return decideStored(c.offerId, outcome(await this.rematch(m, t.id)));
    }
    if (!c.evidence) return null;
    if (!withinClaimWindow(new Date(c.evidence.event.transactedAt), windowDays, now))
      return { status: 'rejected', reasons: ['claim_window_expired'], redemptionId: null };
    const sim = await this.simulation.simulate(c.institutionId, c.evidence.event, m);
    return decideEvidence(
      c.offerId,
      sim.evaluations.map((e) => ({ offerId: e.offer_id, outcome: e.outcome, reasons: e.reasons })),
    );
  }

  private rematch(m: EntityManager, transactionId: string): Promise<StoredMatch> {
    return this.matching.rematchStored(transactionId, { within: m, source: 'claim' });
  }

  /**
   * An operator's decision on a `pending_review` claim. Approving stores the evidence as the
   * transaction of the claimed ref (source `claim`; a later post of the ref is a duplicate) unless
   * the bank posted it meanwhile, then decides on the stored row as any claim is decided; a run
   * that rewards nothing is refused and undone. The `claim.resolved` event is recorded with it.
   */
  /**
   * An operator's decision, in one transaction with the rematch it needs; `record` runs in that
   * transaction with the decided claim (the audit entry), so the decision and its record commit
   * together or not at all.
   */
  async decide(
    id: string,
    decision: ClaimDecisionInput,
    note: string | null,
    record?: (m: EntityManager, claim: ClaimRow) => Promise<void>,
  ): Promise<DecisionOutcome> {
    try {
      return await this.db.transaction(async (m): Promise<DecisionOutcome> => {
        const c = await this.repo.lockById(m, id);
        if (!c) return { kind: 'not_found' };
        if (!awaitsOperator(c.status)) return { kind: 'claim_decided', claim: c };
        const made =
          decision === 'reject'
            ? { status: 'rejected' as const, reasons: [], redemptionId: null }
            : await this.approve(m, c);
        const claim = await this.repo.decide(m, c.id, { ...made, decidedBy: 'operator' }, note);
        await this.webhooks.claimResolved(
          m,
          {
            claimId: claim.id,
            institutionId: claim.institution_id,
            offerId: claim.offer_id,
            transactionRef: claim.transaction_ref,
            status: claim.status,
            reasons: claim.reasons,
            redemptionId: claim.redemption_id,
            cardholderToken: claim.cardholder_token,
          },
          new Date(),
        );
        if (record) await record(m, claim);
        return { kind: 'decided', claim };
      });
    } catch (e) {
      if (e instanceof Refused) return { kind: 'refused', code: e.code };
      throw e;
    }
  }

  private async approve(m: EntityManager, c: ClaimRow): Promise<ClaimDecision> {
    let t = await this.repo.lockTransaction(m, c.institution_id, c.transaction_ref);
    if (!t) {
      const evidence = storedEvidence(c);
      if (!evidence) throw new Refused('transaction_not_found');
      await this.store.insert(
        [{ institutionId: c.institution_id, event: evidence.event }],
        'claim',
        {
          within: m,
        },
      );
      t = await this.repo.lockTransaction(m, c.institution_id, c.transaction_ref);
      if (!t) throw new Refused('transaction_not_found');
    }
    const live = await this.matching.liveRedemption(m, t.id);
    if (live)
      return decideStored(c.offer_id, { alreadyRewarded: live, redemption: null, verdicts: [] });
    // The window was met when the claim was filed; the review's length does not count against it.
    const barrier = claimBarrier(
      record(t),
      c.cardholder_token,
      Number.POSITIVE_INFINITY,
      new Date(),
    );
    if (barrier) throw new Refused(barrier);
    const r = decideApproval(c.offer_id, outcome(await this.rematch(m, t.id)));
    if (!r.ok) throw new Refused(r.code);
    return r.decision;
  }

  get(id: string, institutionId: string | null): Promise<ClaimRow | undefined> {
    return this.repo.get(id, institutionId);
  }

  list(
    filter: { institutionId: string | null; status: ClaimStatus | null },
    after: KeysetAfter | null,
    limit: number,
  ): Promise<ClaimRow[]> {
    return this.repo.list(filter, after, limit);
  }
}

/** A decision waiting for an operator has no decider yet. */
const decidedBy = (status: ClaimStatus) =>
  status === 'pending_review' ? null : ('rules' as const);

const record = (t: ClaimedTransaction) => ({
  kind: t.kind,
  history: t.history,
  cardholderToken: t.cardholder_token,
  transactedAt: t.transacted_at,
  rewardOn: t.reward_on,
});

const verdict = (e: EvaluatedOffer): OfferVerdict => ({
  offerId: e.evaluation.offerId,
  outcome: e.evaluation.outcome,
  reasons: e.evaluation.reasons,
});

const outcome = (run: StoredMatch) => ({
  alreadyRewarded: run.alreadyRewarded,
  redemption: run.redemption ? { id: run.redemption.id, offerId: run.redemption.offerId } : null,
  verdicts: run.evaluations.map(verdict),
});

/** The evidence as sent, only its fields (stored with the claim for the operator). */
function evidenceJson(p: PurchaseEvidence): PurchaseEvidence {
  return {
    amount: p.amount,
    ...(p.currency !== undefined ? { currency: p.currency } : {}),
    merchant_identifier: p.merchant_identifier,
    ...(p.merchant_identifier_type !== undefined
      ? { merchant_identifier_type: p.merchant_identifier_type }
      : {}),
    transacted_at: p.transacted_at,
  };
}

/** The evidence stored with a claim, read again as a transaction event (null: none, or no longer valid). */
function storedEvidence(c: ClaimRow): NewClaim['evidence'] {
  if (!c.purchase) return null;
  const parsed = parseTransactionEvent(
    evidenceEventBody(c.transaction_ref, c.cardholder_token, c.purchase),
    { institutionId: c.institution_id },
  );
  return parsed.ok ? { sent: c.purchase, event: parsed.event } : null;
}
