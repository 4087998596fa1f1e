import type { RewardOn } from './card-lifecycle';
import { NO_MATCH_REASONS } from './matching';
import { DAY_MS } from './timestamp';
import type { TransactionTypeValue } from './transaction-event';

/**
 * Claims for missing rewards (docs/claims.md): a bank's support desk says "this cardholder bought
 * at the merchant and got nothing", and the claim is decided at once by the rules below and by
 * matching's own evaluation (the EvaluationPipeline), never by a copy of it. This file holds only
 * what is particular to claims: the statuses, the barriers a stored record meets before any offer
 * is evaluated, the claim window, and how an evaluation becomes a claim's decision.
 */

/**
 * - `approved`: the claimed offer rewarded the purchase (a redemption with source `claim`).
 * - `rewarded_other_offer`: the claim ran matching again and another offer won (the better reward).
 * - `already_rewarded`: the purchase had a live redemption before the claim.
 * - `rejected`: the purchase cannot earn the offer; `reasons` says why.
 * - `pending_review`: the purchase is not stored, its evidence meets the rules; an operator decides.
 */
export const CLAIM_STATUSES = [
  'approved',
  'rewarded_other_offer',
  'already_rewarded',
  'rejected',
  'pending_review',
] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** Who decided a claim: the rules at once, or an operator (a `pending_review` claim). */
export const CLAIM_DECIDERS = ['rules', 'operator'] as const;
export type ClaimDecider = (typeof CLAIM_DECIDERS)[number];

/** An operator's decision on a `pending_review` claim. */
export const CLAIM_DECISIONS = ['approve', 'reject'] as const;
export type ClaimDecisionInput = (typeof CLAIM_DECISIONS)[number];

/** The program setting `claim_window_days`: its bounds (the default is PROGRAM_DEFAULTS'). */
export const CLAIM_WINDOW_DAYS = { min: 1, max: 365 } as const;

/** Why a stored record cannot earn a claimed reward, found before any offer is evaluated. */
export const CLAIM_BARRIERS = [
  'not_a_purchase',
  'historical_transaction',
  'cardholder_mismatch',
  'awaiting_clearing',
  'claim_window_expired',
] as const;
export type ClaimBarrier = (typeof CLAIM_BARRIERS)[number];

/** Every code a claim's `reasons` may hold: the barriers, then matching's own (simulate's). */
export const CLAIM_REASONS = [...CLAIM_BARRIERS, ...NO_MATCH_REASONS] as const;
export type ClaimReason = (typeof CLAIM_REASONS)[number];

/** A stored transaction as a claim sees it (read under its lock). */
export interface ClaimedRecord {
  kind: TransactionTypeValue;
  /** A historical backfill record (never matched). */
  history: boolean;
  cardholderToken: string;
  transactedAt: Date;
  /** The program's reward_on (card authorizations wait for their clearing under `clearing`). */
  rewardOn: RewardOn;
}

/** Whether a purchase made at `transactedAt` may still be claimed at `now`. */
export function withinClaimWindow(transactedAt: Date, windowDays: number, now: Date): boolean {
  return now.getTime() - transactedAt.getTime() <= windowDays * DAY_MS;
}

/**
 * What keeps a stored record from earning the claimed reward whatever the offer, first found
 * first: a refund or void is not a purchase; a historical record is never rewarded; the purchase
 * is another cardholder's; an authorization waits for its clearing under reward_on=clearing; the
 * purchase is older than the claim window. Null: the record is evaluated.
 */
export function claimBarrier(
  record: ClaimedRecord,
  cardholderToken: string,
  windowDays: number,
  now: Date,
): ClaimBarrier | null {
  if (record.kind === 'refund' || record.kind === 'authorization_reversal') return 'not_a_purchase';
  if (record.history) return 'historical_transaction';
  if (record.cardholderToken !== cardholderToken) return 'cardholder_mismatch';
  if (record.kind === 'authorization' && record.rewardOn === 'clearing') return 'awaiting_clearing';
  if (!withinClaimWindow(record.transactedAt, windowDays, now)) return 'claim_window_expired';
  return null;
}

/** One offer as the purchase was evaluated against it (matching's or simulate's report). */
export interface OfferVerdict {
  offerId: string;
  outcome: 'match' | 'no_match';
  reasons: readonly string[];
}

/** A claim's decision: its status, the codes that say why, and the redemption it points at. */
export interface ClaimDecision {
  status: ClaimStatus;
  reasons: string[];
  redemptionId: string | null;
}

/**
 * Why the claimed offer did not reward the purchase: its evaluation's reasons. An offer the
 * purchase was not evaluated against is not an offer of the purchase's merchant
 * (`merchant_mismatch`).
 */
export function reasonsFor(offerId: string, verdicts: readonly OfferVerdict[]): string[] {
  const v = verdicts.find((x) => x.offerId === offerId);
  return v ? [...v.reasons] : ['merchant_mismatch'];
}

/** What matching, run again for the stored purchase, did (MatchingService.rematchStored). */
export interface RematchOutcome {
  /** A live redemption that existed before the run (nothing was evaluated). */
  alreadyRewarded: string | null;
  /** The redemption the run made, and for which offer. */
  redemption: { id: string; offerId: string } | null;
  verdicts: readonly OfferVerdict[];
}

/**
 * A stored purchase's claim: a redemption that existed before → `already_rewarded`; the run
 * rewarded the claimed offer → `approved`; another offer won → `rewarded_other_offer`; nothing
 * won → `rejected` with the claimed offer's reasons.
 */
export function decideStored(offerId: string, run: RematchOutcome): ClaimDecision {
  if (run.alreadyRewarded)
    return { status: 'already_rewarded', reasons: [], redemptionId: run.alreadyRewarded };
  if (run.redemption)
    return {
      status: run.redemption.offerId === offerId ? 'approved' : 'rewarded_other_offer',
      reasons: [],
      redemptionId: run.redemption.id,
    };
  return { status: 'rejected', reasons: reasonsFor(offerId, run.verdicts), redemptionId: null };
}

/**
 * A purchase that is not stored, judged on its evidence (simulate's evaluation): the claimed
 * offer would reward it → `pending_review` (an operator decides); else `rejected` with its reasons.
 */
export function decideEvidence(offerId: string, verdicts: readonly OfferVerdict[]): ClaimDecision {
  const v = verdicts.find((x) => x.offerId === offerId);
  if (v?.outcome === 'match') return { status: 'pending_review', reasons: [], redemptionId: null };
  return { status: 'rejected', reasons: reasonsFor(offerId, verdicts), redemptionId: null };
}

/**
 * An operator's approval, after matching ran for the stored purchase: as decideStored, except
 * that a run that rewards nothing is refused (budget and limits still hold) with the claimed
 * offer's first reason as the error code, and the claim stays `pending_review`.
 */
export function decideApproval(
  offerId: string,
  run: RematchOutcome,
): { ok: true; decision: ClaimDecision } | { ok: false; code: string } {
  const decision = decideStored(offerId, run);
  if (decision.status !== 'rejected') return { ok: true, decision };
  return { ok: false, code: decision.reasons[0] ?? 'merchant_mismatch' };
}

/**
 * A repeat of a claim (same institution, offer and transaction_ref): one the rules rejected is
 * evaluated again (the merchant may have been mapped since); any other answers unchanged (an
 * operator's rejection stands).
 */
export function repeatReevaluates(claim: {
  status: ClaimStatus;
  decidedBy: ClaimDecider | null;
}): boolean {
  return claim.status === 'rejected' && claim.decidedBy === 'rules';
}

/** Only a `pending_review` claim takes an operator's decision (else `409 claim_decided`). */
export function awaitsOperator(status: ClaimStatus): boolean {
  return status === 'pending_review';
}

/** The purchase evidence a claim may carry when the purchase is not stored (major units). */
export interface PurchaseEvidence {
  amount: unknown;
  currency?: unknown;
  merchant_identifier: unknown;
  merchant_identifier_type?: unknown;
  transacted_at: unknown;
}

/**
 * The evidence as a transaction event body, for the one parser of transaction events
 * (parseTransactionEvent: every field rule) and then simulate, or the store on approval. The card
 * is not known: the instrument is the marker `claim`.
 */
export function evidenceEventBody(
  transactionRef: string,
  cardholderToken: string,
  p: PurchaseEvidence,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    transaction_ref: transactionRef,
    cardholder_token: cardholderToken,
    instrument_token: 'claim',
    transaction_type: 'purchase',
    amount: p.amount,
    merchant_identifier: p.merchant_identifier,
    transacted_at: p.transacted_at,
  };
  if (p.currency !== undefined) body.currency = p.currency;
  if (p.merchant_identifier_type !== undefined)
    body.merchant_identifier_type = p.merchant_identifier_type;
  return body;
}
