import type { Allocation } from './matching';
import type { RedemptionFacts } from './webhook-payloads';

/** A redemption to insert, with its settlement entry (pending): amounts in minor units. */
export interface NewRedemption {
  id: string;
  institutionId: string;
  transactionId: string;
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
  purchase: { institution_id: string; cardholder_token: string },
  offerMerchantId: string,
): NewRedemption {
  return {
    id,
    institutionId: purchase.institution_id,
    transactionId: a.transactionId,
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
}

/** What the `redemption.reversed` event of a stored redemption says (clawback beside it). */
export function reversedFacts(r: StoredRedemption): RedemptionFacts {
  return {
    redemptionId: r.redemption_id,
    institutionId: r.institution_id,
    offerId: r.offer_id,
    cardholderToken: r.cardholder_token,
    institutionPayoutMinor: r.institution_payout_amount,
    currency: r.currency,
  };
}
