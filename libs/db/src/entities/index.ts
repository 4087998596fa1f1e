import { ApiKey, ApiKeyReminder, PortalUser, SecurityEvent, Session } from './access.entity';
import { CardholderOffer } from './cardholder-offer.entity';
import { Institution } from './institution.entity';
import { Merchant, MerchantIdentifier } from './merchant.entity';
import {
  CsvUpload,
  EngagementEvent,
  InboxMessage,
  WebhookAttempt,
  WebhookReplay,
  WebhookDelivery,
} from './messaging.entity';
import { Offer, OfferTarget } from './offer.entity';
import { Program } from './program.entity';
import { Redemption } from './redemption.entity';
import { SettlementEntry, SettlementRun } from './settlement.entity';
import { Transaction } from './transaction.entity';

export * from './access.entity';
export * from './cardholder-offer.entity';
export * from './institution.entity';
export * from './merchant.entity';
export * from './messaging.entity';
export * from './offer.entity';
export * from './program.entity';
export * from './redemption.entity';
export * from './settlement.entity';
export * from './transaction.entity';
export * from './transformers';

export const ENTITIES = [
  Institution,
  Program,
  Merchant,
  MerchantIdentifier,
  Offer,
  OfferTarget,
  CardholderOffer,
  Transaction,
  Redemption,
  SettlementEntry,
  SettlementRun,
  ApiKey,
  ApiKeyReminder,
  PortalUser,
  Session,
  SecurityEvent,
  WebhookDelivery,
  WebhookAttempt,
  WebhookReplay,
  InboxMessage,
  CsvUpload,
  EngagementEvent,
];
