import type { Locale, SortOrder } from './offer-feed';

/**
 * The program settings of an institution that set none (docs/offers.md). The program table's
 * column defaults are the same values (its migration, which as history keeps its literals); code
 * that reads a program row that may be missing falls back to these.
 */
export const PROGRAM_DEFAULTS = {
  supportedLocales: ['en'] as readonly Locale[],
  sortOrder: 'featured' as SortOrder,
  maxActiveOffers: 10,
  widgetFeedLimit: 20,
  /** The service's share of a merchant fee, as decimal text (exact arithmetic in applyRate). */
  serviceShareRate: '0.5',
  settlementHoldDays: 30,
  /** Days after its purchase a claim for a missing reward may be filed (claims.ts). */
  claimWindowDays: 90,
} as const;
