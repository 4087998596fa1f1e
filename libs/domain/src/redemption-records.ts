import type { Allocation } from './matching';
import type { RedemptionFacts } from './webhook-payloads';

/**
 * What a redemption stores so that its events and reporting rows reconcile alone (docs/webhooks.md):
 * the rewarded record's transaction_ref, the amount the reward was computed on (purchase_amount:
 * the purchase's net amount; for a goal, the round's counted spend), the merchant-funded amount,
 * when the purchase happened and the goal round, all written with the redemption, never read from the transaction later (it may
 * be gone by retention).
 */

/** A redemption to insert, with its settlement entry (pending): amounts in minor units. */
export interface NewRedemption {
  id: string;
  institutionId: string;
  transactionId: string;
  /** The rewarded record's transaction_ref (the purchase's; a card chain's decided record's). */
  transactionRef: string;
  /** When the rewarded record happened (kept here: the transaction leaves with its partition). */
  transactedAt: Date;
  enrollmentId: string;
  offerId: string;
  merchantId: string;
  cardholderToken: string;
  currency: string;
  purchase: number;
  cashback: number;
  merchantFunded: number;
  serviceRevenue: number;
  institutionPayout: number;
  /** Goal offers: the round the redemption rewards; null otherwise. */
  goalRound: number | null;
  /** Goal offers: the target the round was rewarded under (its refunds are judged against it). */
  goalTarget: number | null;
}

/** The redemption an allocation makes for its purchase, at the offer's merchant. */
export function newRedemption(
  id: string,
  a: Allocation,
  purchase: {
    institution_id: string;
    cardholder_token: string;
    transaction_ref: string;
    transacted_at: Date;
  },
  offerMerchantId: string,
): NewRedemption {
  return {
    id,
    institutionId: purchase.institution_id,
    transactionId: a.transactionId,
    transactionRef: purchase.transaction_ref,
    transactedAt: purchase.transacted_at,
    enrollmentId: a.enrollmentId,
    offerId: a.offerId,
    merchantId: offerMerchantId,
    cardholderToken: purchase.cardholder_token,
    currency: a.reward.currency,
    purchase: a.reward.purchaseAmount,
    cashback: a.reward.cashback,
    merchantFunded: a.reward.merchantFunded,
    serviceRevenue: a.reward.serviceRevenue,
    institutionPayout: a.reward.institutionPayout,
    goalRound: a.goalRound ?? null,
    goalTarget: a.goalTarget ?? null,
  };
}

/** What the `redemption.completed` event of a new redemption says. */
export function completedFacts(r: NewRedemption): RedemptionFacts {
  return {
    redemptionId: r.id,
    institutionId: r.institutionId,
    offerId: r.offerId,
    cardholderToken: r.cardholderToken,
    institutionPayoutMinor: r.institutionPayout,
    currency: r.currency,
    transactionRef: r.transactionRef,
    purchaseMinor: r.purchase,
    merchantFundedMinor: r.merchantFunded,
    goalRound: r.goalRound,
  };
}

/** A stored redemption as read for reversal (its row's columns). */
export interface StoredRedemption {
  redemption_id: string;
  institution_id: string;
  offer_id: string;
  cardholder_token: string;
  currency: string;
  institution_payout_amount: string;
  transaction_ref: string;
  purchase_amount: string;
  merchant_funded_amount: string;
  goal_round: number | null;
}

/**
 * What the events of a stored redemption say (`redemption.reversed`: its cause and clawback
 * beside it; `redemption.settled`).
 */
export function storedFacts(r: StoredRedemption): RedemptionFacts {
  return {
    redemptionId: r.redemption_id,
    institutionId: r.institution_id,
    offerId: r.offer_id,
    cardholderToken: r.cardholder_token,
    institutionPayoutMinor: r.institution_payout_amount,
    currency: r.currency,
    transactionRef: r.transaction_ref,
    purchaseMinor: r.purchase_amount,
    merchantFundedMinor: r.merchant_funded_amount,
    goalRound: r.goal_round === null ? null : Number(r.goal_round),
  };
}
