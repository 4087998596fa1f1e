/**
 * The vocabulary of the accounts: an institution's plan (its default rate limits). Portal users'
 * roles: staff-roles.ts.
 */

export const PLANS = ['starter', 'growth', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
