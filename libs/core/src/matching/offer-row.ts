import { fromStoredQualification, goalOf, OfferTerms, StoredQualification } from '@app/domain';

/**
 * The offer columns matching decides on (alias `o`, its budget counter `b`: join OFFER_BUDGET_JOIN);
 * bigint and numeric arrive as text.
 */
export const OFFER_TERMS_COLUMNS = `o.id, o.merchant_id, o.status, o.currency, o.min_spend, o.reward_type, o.cashback_amount,
  o.cashback_percent::text AS cashback_percent, o.merchant_fee_amount, o.starts_at, o.expires_at, o.budget_total,
  b.budget_used, o.max_redemptions_per_cardholder, o.priority, o.qualification, o.goal_type, o.goal_target,
  o.holdout_bps, o.terms_from`;

/** The offer's budget counter (offer_budget, one row per offer). */
export const OFFER_BUDGET_JOIN = 'JOIN offer_budget b ON b.offer_id = o.id';

export interface OfferRow {
  id: string;
  merchant_id: string;
  status: string;
  currency: string;
  min_spend: string;
  reward_type: 'fixed' | 'percent';
  cashback_amount: string;
  cashback_percent: string | null;
  merchant_fee_amount: string;
  starts_at: Date;
  expires_at: Date;
  budget_total: string | null;
  budget_used: string;
  max_redemptions_per_cardholder: number;
  priority: number;
  qualification: StoredQualification | null;
  goal_type: string | null;
  goal_target: string | null;
  holdout_bps: number;
  terms_from: Date | null;
}

export function toOfferTerms(r: OfferRow): OfferTerms {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    status: r.status,
    currency: r.currency,
    minSpend: Number(r.min_spend),
    rewardType: r.reward_type,
    cashbackAmount: Number(r.cashback_amount),
    cashbackPercent: r.cashback_percent,
    merchantFeeAmount: Number(r.merchant_fee_amount),
    startsAt: r.starts_at,
    expiresAt: r.expires_at,
    budgetTotal: r.budget_total === null ? null : Number(r.budget_total),
    budgetUsed: Number(r.budget_used),
    maxRedemptionsPerCardholder: r.max_redemptions_per_cardholder,
    priority: r.priority,
    ...(r.qualification ? { qualification: fromStoredQualification(r.qualification) } : {}),
    ...(r.goal_type ? { goal: goalOf(r.goal_type, r.goal_target) } : {}),
    ...(r.holdout_bps ? { holdoutBps: r.holdout_bps } : {}),
    ...(r.terms_from ? { termsFrom: r.terms_from } : {}),
  };
}
