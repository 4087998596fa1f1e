/**
 * The vocabulary of the accounts: an institution's plan (its default rate limits) and a portal
 * user's role (an admin manages keys, webhooks and users; a member reads).
 */

export const PLANS = ['starter', 'growth', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const PORTAL_ROLES = ['admin', 'member'] as const;
export type PortalRole = (typeof PORTAL_ROLES)[number];
