import { maskToken } from './masking';
import { toMajor } from './money';
import type { ReversalCause } from './reversal-reasons';

/**
 * The webhook event catalog and the body of each event. Every redemption event carries the
 * published redemption payload's fields, in its order, with `event` set to its type; an event may
 * add fields after them. The body is built here once, stored with the delivery, and sent
 * byte-for-byte the same on every attempt (see serializeWebhookPayload). Fields added later are
 * listed in webhook-signing.ts (REDEMPTION_EVENT_ADDED_FIELDS) and documented as additive.
 */
export const WEBHOOK_EVENT_TYPES = [
  'redemption.completed',
  'redemption.reversed',
  'redemption.settled',
  'statement.closed',
  'webhook.test',
  'claim.resolved',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What a redemption event says about its redemption (amounts in minor units of `currency`). */
export interface RedemptionFacts {
  redemptionId: string;
  institutionId: string;
  offerId: string;
  cardholderToken: string;
  institutionPayoutMinor: number | string;
  currency: string;
  /** The rewarded record's transaction_ref, as stored on the redemption. */
  transactionRef: string;
  /** What the reward was computed on: the purchase's net amount, a goal round's counted spend. */
  purchaseMinor: number | string;
  merchantFundedMinor: number | string;
  /** The goal round a goal offer's redemption rewards; null for a single purchase. */
  goalRound: number | null;
}

export type WebhookPayload = Record<string, unknown> & { event: WebhookEventType };

function redemptionBody(
  event: WebhookEventType,
  r: RedemptionFacts,
  occurredAt: Date,
): WebhookPayload {
  return {
    event,
    redemption_id: r.redemptionId,
    institution_id: r.institutionId,
    offer_id: r.offerId,
    cardholder_token: r.cardholderToken,
    cardholder_token_masked: maskToken(r.cardholderToken),
    institution_payout_amount: toMajor(r.institutionPayoutMinor, r.currency),
    occurred_at: occurredAt.toISOString(),
  };
}

/** What every redemption event adds after the published fields (and a reversal's clawback). */
function reconciliationFields(r: RedemptionFacts) {
  return {
    transaction_ref: r.transactionRef,
    purchase_amount: toMajor(r.purchaseMinor, r.currency),
    merchant_funded_amount: toMajor(r.merchantFundedMinor, r.currency),
    goal_round: r.goalRound,
    currency: r.currency,
  };
}

/** A purchase met an offer's terms: credit the cardholder `institution_payout_amount`. */
export function redemptionCompletedPayload(r: RedemptionFacts, occurredAt: Date): WebhookPayload {
  return { ...redemptionBody('redemption.completed', r, occurredAt), ...reconciliationFields(r) };
}

/**
 * The redemption was reversed: `institution_payout_amount` is the amount to claw back and
 * `clawback_amount` what the merchant claws back (null when not computed); `reversal_reason` and
 * `reversal_transaction_ref` say why and which record caused it (null for an expiry).
 */
export function redemptionReversedPayload(
  r: RedemptionFacts,
  clawbackMinor: number | null,
  cause: ReversalCause,
  occurredAt: Date,
): WebhookPayload {
  return {
    ...redemptionBody('redemption.reversed', r, occurredAt),
    clawback_amount: clawbackMinor === null ? null : toMajor(clawbackMinor, r.currency),
    ...reconciliationFields(r),
    reversal_reason: cause.reason,
    reversal_transaction_ref: cause.transactionRef,
  };
}

/** The hold passed and the redemption settled: the payout is final (no refund can reverse it). */
export function redemptionSettledPayload(r: RedemptionFacts, occurredAt: Date): WebhookPayload {
  return { ...redemptionBody('redemption.settled', r, occurredAt), ...reconciliationFields(r) };
}

/** A closed statement as its event tells it (figures in minor units of `currency`). */
export interface ClosedStatementFacts {
  id: string;
  institutionId: string;
  granularity: string;
  periodStart: string;
  periodEnd: string;
  timeZone: string;
  currency: string;
  checksum: string;
  pendingOpening: number;
  earned: number;
  reversed: number;
  settled: number;
  pendingClosing: number;
  clawedBack: number;
  netPayout: number;
  movementCount: number;
}

/**
 * A statement closed (docs/statements.md): its period, figures (major units), the checksum of its
 * lines file and the path to fetch that file (`GET {lines_path}` with `Accept: text/csv`). Sent
 * only to institutions that chose the event type (off by default).
 */
export function statementClosedPayload(s: ClosedStatementFacts, occurredAt: Date): WebhookPayload {
  const major = (minor: number) => toMajor(minor, s.currency);
  return {
    event: 'statement.closed',
    statement_id: s.id,
    institution_id: s.institutionId,
    granularity: s.granularity,
    period_start: s.periodStart,
    period_end: s.periodEnd,
    time_zone: s.timeZone,
    currency: s.currency,
    checksum: s.checksum,
    pending_opening: major(s.pendingOpening),
    earned: major(s.earned),
    reversed: major(s.reversed),
    settled: major(s.settled),
    pending_closing: major(s.pendingClosing),
    clawed_back: major(s.clawedBack),
    net_payout: major(s.netPayout),
    movement_count: s.movementCount,
    lines_path: `/api/v1/statements/${s.id}/lines`,
    occurred_at: occurredAt.toISOString(),
  };
}

/** A test event, sent only when someone asks for one: no redemption, nothing to credit. */
export function webhookTestPayload(institutionId: string, occurredAt: Date): WebhookPayload {
  return {
    event: 'webhook.test',
    institution_id: institutionId,
    occurred_at: occurredAt.toISOString(),
    message: 'A test event sent from the portal. Nothing to credit.',
  };
}

/** What a `claim.resolved` event says about a claim an operator decided (docs/claims.md). */
export interface ClaimFacts {
  claimId: string;
  institutionId: string;
  offerId: string;
  transactionRef: string;
  status: string;
  reasons: readonly string[];
  redemptionId: string | null;
  cardholderToken: string;
}

/**
 * An operator decided a `pending_review` claim: its status (`approved`, `rewarded_other_offer`,
 * `already_rewarded` or `rejected`), reasons and redemption. The cardholder token is masked only:
 * the bank reads the claim by id for the rest.
 */
export function claimResolvedPayload(c: ClaimFacts, occurredAt: Date): WebhookPayload {
  return {
    event: 'claim.resolved',
    claim_id: c.claimId,
    institution_id: c.institutionId,
    offer_id: c.offerId,
    transaction_ref: c.transactionRef,
    status: c.status,
    reasons: [...c.reasons],
    redemption_id: c.redemptionId,
    cardholder_token_masked: maskToken(c.cardholderToken),
    occurred_at: occurredAt.toISOString(),
  };
}
