import type { ChainEvent } from './card-lifecycle';

/**
 * Why a redemption was reversed, stored on the redemption when it is reversed and sent in its
 * `redemption.reversed` event (docs/webhooks.md), with the record that caused it:
 * - `refund`: a refund took the purchase's net amount below the offer's min_spend (the refund);
 * - `void`: an authorization_reversal voided the authorization the reward was decided on (the void);
 * - `authorization_expired`: the authorization expired without a clearing (no record: null);
 * - `clearing_changed`: a clearing no longer earns the reward decided before it (the clearing;
 *   the reward it earns instead, if any, is a new redemption on that clearing);
 * - `goal_round_below_target`: a refund took a rewarded goal round below its target (the refund).
 */
export const REVERSAL_REASONS = [
  'refund',
  'void',
  'authorization_expired',
  'clearing_changed',
  'goal_round_below_target',
] as const;
export type ReversalReason = (typeof REVERSAL_REASONS)[number];

/** A reversal's reason and the transaction_ref of the record that caused it (null: an expiry). */
export interface ReversalCause {
  reason: ReversalReason;
  transactionRef: string | null;
}

/** A refund of a chunk, as its reversal cause needs it. */
export interface CausingRefund {
  id: string;
  transaction_ref: string;
  transacted_at: Date;
}

/**
 * The refund a reversal is recorded against when several refunds of one run reversed it: the
 * latest (transacted_at, then id), the one that took the net amount below the line. Null when the
 * run has none (a refund netted in report mode).
 */
export function causingRefund<R extends CausingRefund>(refunds: readonly R[]): R | null {
  let out: R | null = null;
  for (const r of refunds)
    if (
      !out ||
      r.transacted_at.getTime() > out.transacted_at.getTime() ||
      (r.transacted_at.getTime() === out.transacted_at.getTime() && r.id > out.id)
    )
      out = r;
  return out;
}

/** A refund's reversal: of a purchase's redemption, or of a goal round's. */
export function refundCause(
  refund: { transaction_ref: string } | null,
  goalRound: boolean,
): ReversalCause {
  return {
    reason: goalRound ? 'goal_round_below_target' : 'refund',
    transactionRef: refund?.transaction_ref ?? null,
  };
}

/**
 * The card lifecycle's reversal of a chain's live redemption, by the event that reversed it: a
 * void, an expiry, or a clearing that no longer earns it (confirm). `ref` is the record's
 * transaction_ref (none for an expiry).
 */
export function chainCause(event: ChainEvent, ref: string | null): ReversalCause {
  if (event === 'expiry') return { reason: 'authorization_expired', transactionRef: null };
  if (event === 'authorization_reversal') return { reason: 'void', transactionRef: ref };
  return { reason: 'clearing_changed', transactionRef: ref };
}
