/**
 * An offer's budget (docs/transactions.md, "Budget"): the cap on what the merchant funds
 * (cashback + fee per redemption, minor units), null = unlimited. This is the one place the
 * budget-left rule is written; matching, simulate and the feed ask it. (The guarded UPDATE of
 * matching.repository.ts applyBudget is its last line in SQL, should locking ever be bypassed.)
 */
export interface Budget {
  budgetTotal: number | null;
  budgetUsed: number;
}

/** Whether the budget still takes a redemption funding `merchantFunded` (minor units). */
export function budgetTakes(b: Budget, merchantFunded: number): boolean {
  return b.budgetTotal === null || b.budgetUsed + merchantFunded <= b.budgetTotal;
}

/**
 * Budget left for one more redemption of the offer, whatever the purchase: the largest
 * merchant-funded amount one redemption can cost, cashback_amount (the fixed reward, or the cap of
 * a percent reward) plus the merchant fee (what the feed shows and an add accepts).
 */
export function hasBudgetForOneMore(
  o: Budget & { cashbackAmount: number; merchantFeeAmount: number },
): boolean {
  return budgetTakes(o, o.cashbackAmount + o.merchantFeeAmount);
}
