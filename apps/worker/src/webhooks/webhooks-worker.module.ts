import { Module } from '@nestjs/common';
import { WebhooksCoreModule } from '@app/core';
import { WebhookRelayService } from './webhook-relay.service';
import { WebhooksProcessor } from './webhooks.processor';

/** Webhook delivery in the worker: the attempt processor and the outbox relay. */
@Module({
  imports: [WebhooksCoreModule],
  providers: [WebhooksProcessor, WebhookRelayService],
})
export class WebhooksWorkerModule {}
