import { Global, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookEvents } from './webhook-events';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookReplays } from './webhook-replays';
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
 * Webhook delivery for both apps (needs the global DbModule and ConfigModule). Global so that
 * matching and settlement can inject WebhookEvents and ask for deliveries in their transactions.
 */
@Global()
@Module({
  providers: [store, WebhookEvents, WebhookOutbox, WebhookDeliveryService, WebhookReplays],
  exports: [WebhookStore, WebhookEvents, WebhookOutbox, WebhookDeliveryService, WebhookReplays],
})
export class WebhooksCoreModule {}
