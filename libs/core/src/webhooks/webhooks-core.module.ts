import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { InstitutionMailer } from '../mail/institution-mailer';
import { MailRecipientsRepository } from '../mail/mail-recipients.repository';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookEvents } from './webhook-events';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookReplays } from './webhook-replays';
import { WebhookReplaysRepository } from './webhook-replays.repository';
import { WebhookStore } from './webhook-store';

const store = {
  provide: WebhookStore,
  useFactory: (db: DataSource, config: AppConfig) =>
    new WebhookStore(
      db,
      config.webhook.timeoutMs + config.webhook.leaseGraceMs,
      config.webhook.disableAfterMs,
    ),
  inject: [DataSource, AppConfig],
};

/**
 * Webhook delivery for both apps (needs the global DbModule and ConfigModule): the store that
 * owns the delivery and attempt rows, the events matching and settlement record in their
 * transactions, the outbox, the delivery engine, replays, and the mailer of institution alerts.
 * Imported by TransactionsCoreModule, the api's PortalModule and the worker's modules.
 */
@Module({
  providers: [
    store,
    WebhookEvents,
    WebhookOutbox,
    WebhookDeliveryService,
    WebhookReplays,
    WebhookReplaysRepository,
    MailRecipientsRepository,
    InstitutionMailer,
  ],
  exports: [
    WebhookStore,
    WebhookEvents,
    WebhookOutbox,
    WebhookDeliveryService,
    WebhookReplays,
    InstitutionMailer,
  ],
})
export class WebhooksCoreModule {}
