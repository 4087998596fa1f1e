/**
 * A matched purchase whose redemption may be reversed by a refund, with the redemption's stored
 * columns its `redemption.reversed` event carries (REVERSAL_ROW_COLUMNS; alias r: redemption).
 */
export interface ReversalRow {
  transaction_id: string;
  amount: string;
  refunded: string;
  redemption_id: string;
  institution_id: string;
  offer_id: string;
  cardholder_offer_id: string;
  cardholder_token: string;
  currency: string;
  merchant_funded_amount: string;
  institution_payout_amount: string;
  min_spend: string;
  /**
   * The refund planner's rows (MatchingRepository.liveRedemptionsOf): the purchase's time and when
   * the offer's live terms took effect, to judge it by the version live when it was made.
   */
  transacted_at?: Date;
  terms_from?: Date | null;
  /** The redemption's stored transaction_ref, purchase_amount and goal_round. */
  transaction_ref: string;
  purchase_amount: string;
  goal_round: number | null;
}

/** The redemption's columns of a ReversalRow (alias r), read by every statement that returns one. */
export const REVERSAL_ROW_COLUMNS = `r.id AS redemption_id, r.institution_id, r.offer_id, r.cardholder_offer_id,
  r.cardholder_token, r.currency, r.merchant_funded_amount, r.institution_payout_amount, r.transaction_ref,
  r.purchase_amount::text AS purchase_amount, r.goal_round`;
