import { addBudgetDelta, addEnrollmentDelta, ChunkDeltas } from './chunk-deltas';
import type { MatchingEnrollment, OfferTerms } from './matching';

/**
 * Reversal arithmetic of refunds (the rule itself, net amount below min_spend, is in refunds.ts).
 *
 * A refund is linked to its purchase (same institution, transaction_ref = original_transaction_ref):
 * - no such purchase: the refund is recorded `unmatched`;
 * - the purchase is in the same chunk, or still waiting to be matched: the purchase nets the
 *   refund itself when it is matched (the refund is `matched`);
 * - the purchase is being processed by another run: the refund waits (left `received`);
 * - the purchase was processed: its redemption, if any, is reviewed for reversal.
 */
export type RefundLink = 'no_purchase' | 'netted_by_purchase' | 'deferred' | 'review';

export function linkRefund(
  purchaseFound: boolean,
  purchaseInChunk: boolean,
  /** Status of the purchase outside the chunk when this run could lock it; undefined otherwise. */
  lockedPurchaseStatus: string | undefined,
): RefundLink {
  if (!purchaseFound) return 'no_purchase';
  if (purchaseInChunk) return 'netted_by_purchase';
  if (lockedPurchaseStatus === undefined) return 'deferred';
  return lockedPurchaseStatus === 'received' ? 'netted_by_purchase' : 'review';
}

export interface GiveBack {
  offer: OfferTerms;
  enrollment: MatchingEnrollment;
  /** Change to the offer's budget_used (≤ 0; never below zero). */
  budgetDelta: number;
  /** Change to the enrollment's redemption_count (-1, or 0 when it was already 0). */
  countDelta: number;
}

/**
 * What a reversed redemption gives back: its merchant-funded amount to the offer's budget, and one
 * redemption to the enrollment, which becomes `active` again when it was `redeemed` and is now
 * below the offer's max_redemptions_per_cardholder.
 */
export function giveBack(
  offer: OfferTerms,
  enrollment: MatchingEnrollment,
  merchantFunded: number,
): GiveBack {
  const budgetDelta = -Math.min(merchantFunded, offer.budgetUsed);
  const count = Math.max(0, enrollment.redemptionCount - 1);
  const status =
    enrollment.status === 'redeemed' && count < offer.maxRedemptionsPerCardholder
      ? 'active'
      : enrollment.status;
  return {
    offer: { ...offer, budgetUsed: Math.max(0, offer.budgetUsed - merchantFunded) },
    enrollment: { ...enrollment, redemptionCount: count, status },
    budgetDelta,
    countDelta: count - enrollment.redemptionCount,
  };
}

/** A redemption being reversed, as its give-back needs it. */
export interface ReversedRedemption {
  offerId: string;
  enrollmentId: string;
  /** Merchant-funded amount of the redemption (minor units). */
  merchantFunded: number;
}

/**
 * Gives back every reversed redemption, in order, against the chunk's locked state: `offers` and
 * `enrollments` are updated in place (allocation then sees the budget and redemptions given back)
 * and the changes are added to `deltas`.
 */
export function giveBackAll(
  reversed: readonly ReversedRedemption[],
  offers: Map<string, OfferTerms>,
  enrollments: Map<string, MatchingEnrollment>,
  deltas: ChunkDeltas,
): void {
  for (const r of reversed) {
    const g = giveBack(offers.get(r.offerId)!, enrollments.get(r.enrollmentId)!, r.merchantFunded);
    offers.set(g.offer.id, g.offer);
    enrollments.set(g.enrollment.id, g.enrollment);
    addBudgetDelta(deltas, g.offer.id, g.budgetDelta);
    addEnrollmentDelta(deltas, g.enrollment.id, g.countDelta, g.enrollment.status);
  }
}
