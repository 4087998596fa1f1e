import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { OfferFeed1763700001000 } from './1763700001000-offer-feed';
import { WebhookDeliveryLease1763700003000 } from './1763700003000-webhook-delivery-lease';
import { WebhookOutboxNotify1763700003100 } from './1763700003100-webhook-outbox-notify';
import { Portal1763700004000 } from './1763700004000-portal';
import { EngagementRollups1763700005000 } from './1763700005000-engagement-rollups';
import { OfferQualification1763800200000 } from './1763800200000-offer-qualification';
import { WidgetSettings1763800300000 } from './1763800300000-widget-settings';
import { WebhookSecretOverlap1763800400000 } from './1763800400000-webhook-secret-overlap';
import { WebhookEventCatalog1763800400100 } from './1763800400100-webhook-event-catalog';
import { WebhookReplayAndSearch1763800400200 } from './1763800400200-webhook-replay-and-search';
import { WebhookEndpointOptions1763800400300 } from './1763800400300-webhook-endpoint-options';
import { WebhookClientCertificate1763800400400 } from './1763800400400-webhook-client-certificate';
import { AuthChangeNotify1763800500000 } from './1763800500000-auth-change-notify';
import { LoginAttempts1763800500100 } from './1763800500100-login-attempts';
import { FunnelViewerBitmaps1763800500200 } from './1763800500200-funnel-viewer-bitmaps';
import { EngagementEventNoParallel1763800500250 } from './1763800500250-engagement-event-no-parallel';
import { OfferEngineAudience1763800600000 } from './1763800600000-offer-engine-audience';
import { MatchFailed1763800600100 } from './1763800600100-match-failed';
import { HistoryTransactions1763800600200 } from './1763800600200-history-transactions';
import { CardholderOfferLookup1763800600300 } from './1763800600300-cardholder-offer-lookup';
import { WebhookReplayPace1763800600400 } from './1763800600400-webhook-replay-pace';
import { CardLifecycle1763800610000 } from './1763800610000-card-lifecycle';
import { GoalOffers1763800700100 } from './1763800700100-goal-offers';
import { EnrollmentAddFunctions1763800700500 } from './1763800700500-enrollment-add-functions';
import { RedemptionGoalTarget1763800700600 } from './1763800700600-redemption-goal-target';
import { PortalUserDropLockoutColumns1795699994852 } from './1795699994852-portal-user-drop-lockout-columns';
import { KeyDerivation1795699994853 } from './1795699994853-key-derivation';
import { OfferHoldout1795701801460 } from './1795701801460-offer-holdout';
import { LiftIndexes1795701801461 } from './1795701801461-lift-indexes';
import { DatabaseJitOff1795703178476 } from './1795703178476-database-jit-off';
import { Statements1795704758570 } from './1795704758570-statements';
import { StaffRoles1795709520880 } from './1795709520880-staff-roles';
import { DataLifecycle1795711516147 } from './1795711516147-data-lifecycle';
import { EngagementEventPartitions1795711516148 } from './1795711516148-engagement-event-partitions';
import { WebhookAttemptPartitionColumns1795713071847 } from './1795713071847-webhook-attempt-partition-columns';
import { CardholderErasure1795713689108 } from './1795713689108-cardholder-erasure';
import { Claims1795713803388 } from './1795713803388-claims';
import { ClaimCardholderIndex1795716018753 } from './1795716018753-claim-cardholder-index';
import { OperatorsAndAudit1795716265706 } from './1795716265706-operators-and-audit';
import { RedemptionReconciliation1795716573066 } from './1795716573066-redemption-reconciliation';
import { StatementClosedEvent1795716651246 } from './1795716651246-statement-closed-event';
import { TransactionKeys1795722355140 } from './1795722355140-transaction-keys';
import { SecurityActivityAudit1795722499837 } from './1795722499837-security-activity-audit';
import { OfferVersions1795722655360 } from './1795722655360-offer-versions';
import { TenantKeys1795723001389 } from './1795723001389-tenant-keys';
import { OfferBudget1795723153146 } from './1795723153146-offer-budget';
import { InstitutionSso1795724226060 } from './1795724226060-institution-sso';
import { WebhookPartitions1795724862067 } from './1795724862067-webhook-partitions';
import { TransactionPartitions1795725934962 } from './1795725934962-transaction-partitions';
import { CardholderActivity1795726967094 } from './1795726967094-cardholder-activity';
import { TransactionParallelScans1795728000000 } from './1795728000000-transaction-parallel-scans';
import { DropPurchaseTimeIndex1795729000000 } from './1795729000000-drop-purchase-time-index';
import { TimeOrderedTransactionIds1795730000000 } from './1795730000000-time-ordered-transaction-ids';
import { RefundKeys1795731000000 } from './1795731000000-refund-keys';
import { DropTransactionRefIndex1795732000000 } from './1795732000000-drop-transaction-ref-index';
import { DropTransactionIdIndex1795733000000 } from './1795733000000-drop-transaction-id-index';
import { MatchingBacklog1795734000000 } from './1795734000000-matching-backlog';
import { TriggerProbePlans1795735000000 } from './1795735000000-trigger-probe-plans';

export { VIEWER_CHUNK_BITS } from './1763800500200-funnel-viewer-bitmaps';

/** Every migration, in order. Listed explicitly so the bundled apps need no file globbing. */
export const MIGRATIONS = [
  InitialSchema1763700000000,
  OfferFeed1763700001000,
  WebhookDeliveryLease1763700003000,
  WebhookOutboxNotify1763700003100,
  Portal1763700004000,
  EngagementRollups1763700005000,
  OfferQualification1763800200000,
  WidgetSettings1763800300000,
  WebhookSecretOverlap1763800400000,
  WebhookEventCatalog1763800400100,
  WebhookReplayAndSearch1763800400200,
  WebhookEndpointOptions1763800400300,
  WebhookClientCertificate1763800400400,
  AuthChangeNotify1763800500000,
  LoginAttempts1763800500100,
  FunnelViewerBitmaps1763800500200,
  EngagementEventNoParallel1763800500250,
  OfferEngineAudience1763800600000,
  MatchFailed1763800600100,
  HistoryTransactions1763800600200,
  CardholderOfferLookup1763800600300,
  WebhookReplayPace1763800600400,
  CardLifecycle1763800610000,
  GoalOffers1763800700100,
  EnrollmentAddFunctions1763800700500,
  RedemptionGoalTarget1763800700600,
  PortalUserDropLockoutColumns1795699994852,
  KeyDerivation1795699994853,
  OfferHoldout1795701801460,
  LiftIndexes1795701801461,
  DatabaseJitOff1795703178476,
  Statements1795704758570,
  StaffRoles1795709520880,
  DataLifecycle1795711516147,
  EngagementEventPartitions1795711516148,
  WebhookAttemptPartitionColumns1795713071847,
  CardholderErasure1795713689108,
  Claims1795713803388,
  ClaimCardholderIndex1795716018753,
  OperatorsAndAudit1795716265706,
  RedemptionReconciliation1795716573066,
  StatementClosedEvent1795716651246,
  TransactionKeys1795722355140,
  SecurityActivityAudit1795722499837,
  OfferVersions1795722655360,
  TenantKeys1795723001389,
  OfferBudget1795723153146,
  InstitutionSso1795724226060,
  WebhookPartitions1795724862067,
  TransactionPartitions1795725934962,
  CardholderActivity1795726967094,
  TransactionParallelScans1795728000000,
  DropPurchaseTimeIndex1795729000000,
  TimeOrderedTransactionIds1795730000000,
  RefundKeys1795731000000,
  DropTransactionRefIndex1795732000000,
  DropTransactionIdIndex1795733000000,
  MatchingBacklog1795734000000,
  TriggerProbePlans1795735000000,
];
