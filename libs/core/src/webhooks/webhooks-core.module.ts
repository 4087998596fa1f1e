import { Global, Module } from '@nestjs/common';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookOutbox } from './webhook-outbox';

/**
 * Webhook delivery services for both apps (needs the global DbModule and ConfigModule). Global so
 * that matching can inject WebhookOutbox and call `enqueue(deliveryIds)` right after its commit.
 */
@Global()
@Module({
  providers: [WebhookOutbox, WebhookDeliveryService],
  exports: [WebhookOutbox, WebhookDeliveryService],
})
export class WebhooksCoreModule {}
