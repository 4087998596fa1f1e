import {
  ApiKey,
  ApiKeyReminder,
  InstitutionSso,
  LoginAttempt,
  PortalUser,
  SecurityEvent,
  Session,
} from './access.entity';
import { CardholderOffer, GoalContribution } from './cardholder-offer.entity';
import { DataLifecycleRun, LegalHold } from './data-lifecycle.entity';
import { Claim } from './claim.entity';
import {
  EngagementCardholderNumber,
  EngagementEvent,
  EngagementHourly,
  EngagementNumberCounter,
  EngagementViewersDaily,
  EngagementViewersHourly,
} from './engagement.entity';
import { Institution } from './institution.entity';
import { KeyDerivation } from './key-derivation.entity';
import { Merchant, MerchantIdentifier } from './merchant.entity';
import {
  CsvUpload,
  InboxMessage,
  WebhookAttempt,
  WebhookReplay,
  WebhookDelivery,
  WebhookDeliveryKey,
} from './messaging.entity';
import { Offer, OfferBudget, OfferTarget, OfferVersion } from './offer.entity';
import { CardholderErasure, ErasedHoldoutBucket } from './privacy.entity';
import { AuditLogEntry, Operator, OperatorSession, OperatorToken } from './operator.entity';
import { Program } from './program.entity';
import { Redemption } from './redemption.entity';
import { SettlementEntry, SettlementRun } from './settlement.entity';
import { Statement, StatementBook, StatementMovement } from './statement.entity';
import {
  CardChain,
  CardholderActivity,
  Transaction,
  TransactionBacklog,
  TransactionKey,
} from './transaction.entity';
import { WidgetSettings } from './widget-settings.entity';

export * from './access.entity';
export * from './cardholder-offer.entity';
export * from './data-lifecycle.entity';
export * from './claim.entity';
export * from './engagement.entity';
export * from './institution.entity';
export * from './key-derivation.entity';
export * from './merchant.entity';
export * from './messaging.entity';
export * from './offer.entity';
export * from './privacy.entity';
export * from './operator.entity';
export * from './program.entity';
export * from './redemption.entity';
export * from './settlement.entity';
export * from './statement.entity';
export * from './transaction.entity';
export * from './transformers';
export * from './widget-settings.entity';

/**
 * Every table the migrations create, as an entity (the api's and the worker's DataSource register
 * them all: dataSourceOptions). apps/api/test/entities-schema.e2e-spec.ts holds them to the
 * migrated schema; what they cannot express is in schema-allow-list.ts.
 */
export const ENTITIES = [
  Operator,
  OperatorToken,
  OperatorSession,
  AuditLogEntry,
  Institution,
  Program,
  WidgetSettings,
  Merchant,
  MerchantIdentifier,
  Offer,
  OfferBudget,
  OfferTarget,
  OfferVersion,
  CardholderOffer,
  GoalContribution,
  Transaction,
  TransactionKey,
  TransactionBacklog,
  CardChain,
  CardholderActivity,
  Redemption,
  SettlementEntry,
  SettlementRun,
  StatementBook,
  StatementMovement,
  Statement,
  Claim,
  ApiKey,
  ApiKeyReminder,
  PortalUser,
  InstitutionSso,
  Session,
  LoginAttempt,
  SecurityEvent,
  WebhookDelivery,
  WebhookAttempt,
  WebhookDeliveryKey,
  WebhookReplay,
  InboxMessage,
  CsvUpload,
  EngagementEvent,
  EngagementHourly,
  EngagementNumberCounter,
  EngagementCardholderNumber,
  EngagementViewersHourly,
  EngagementViewersDaily,
  KeyDerivation,
  LegalHold,
  DataLifecycleRun,
  CardholderErasure,
  ErasedHoldoutBucket,
];
