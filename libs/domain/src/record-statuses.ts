/**
 * The vocabulary of the status (and source and kind) columns of stored records, defined once for
 * the entities, the DTOs and the services. What moves a record from one status to another lives with
 * its rules: settlement-state.ts (redemptions and settlement entries, whose statuses are there
 * too), webhook-retry.ts (deliveries), matching.ts (transactions and enrollments).
 */

/**
 * How a transaction arrived: a single post, a batch post, a portal CSV upload, or an operator's
 * approval of a claim's purchase evidence (claims.ts).
 */
export const TRANSACTION_SOURCES = ['api', 'batch', 'csv', 'claim'] as const;
export type TransactionSource = (typeof TRANSACTION_SOURCES)[number];

/** Who made a redemption: matching, or a claim's decision (claims.ts). */
export const REDEMPTION_SOURCES = ['matching', 'claim'] as const;
export type RedemptionSource = (typeof REDEMPTION_SOURCES)[number];

/** A transaction: `received` until matching has run, then one of the outcomes. */
export const TRANSACTION_STATUSES = [
  'received',
  'matched',
  'unmatched',
  'merchant_unresolved',
  'match_failed',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** An enrollment (a cardholder added to an offer). */
export const ENROLLMENT_STATUSES = ['active', 'redeemed', 'expired'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

/** A webhook delivery. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A replay of failed webhook deliveries. */
export const REPLAY_STATUSES = ['running', 'done'] as const;
export type ReplayStatus = (typeof REPLAY_STATUSES)[number];

/** A portal CSV upload. */
export const UPLOAD_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

/**
 * An offer: only `active` offers are shown and added; `ended` ones still match earlier purchases.
 * `in_review`: submitted for approval (offer-versions.ts), set only by submit.
 */
export const OFFER_STATUSES = ['draft', 'in_review', 'active', 'paused', 'ended'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];
/** The statuses an operator may send on create and update. */
export const WRITABLE_OFFER_STATUSES = ['draft', 'active', 'paused', 'ended'] as const;

/** A funnel event (engagement_event): a widget view, an offer shown, an add answered `added`. */
export const ENGAGEMENT_KINDS = ['widget_view', 'impression', 'add_success'] as const;
export type EngagementKind = (typeof ENGAGEMENT_KINDS)[number];
