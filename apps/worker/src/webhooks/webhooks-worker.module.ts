import { Module } from '@nestjs/common';
import { WebhooksCoreModule } from '@app/core';
import { WebhookRelayService } from './webhook-relay.service';
import { WebhookReplayRunner } from './webhook-replay.runner';
import { WebhooksProcessor } from './webhooks.processor';

/** Webhook delivery in the worker: the attempt processor, the outbox relay and bulk replays. */
@Module({
  imports: [WebhooksCoreModule],
  providers: [WebhooksProcessor, WebhookRelayService, WebhookReplayRunner],
})
export class WebhooksWorkerModule {}
