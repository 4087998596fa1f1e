import { Module } from '@nestjs/common';
import { WebhooksCoreModule } from '@app/core';
import { WebhookPauseMailer } from './webhook-pause-mailer';
import { WebhookRelayService } from './webhook-relay.service';
import { WebhookReplayRunner } from './webhook-replay.runner';
import { WebhooksProcessor } from './webhooks.processor';

/** Webhook delivery in the worker: the attempt processor, the outbox relay, bulk replays, pause e-mails. */
@Module({
  imports: [WebhooksCoreModule],
  providers: [WebhooksProcessor, WebhookRelayService, WebhookReplayRunner, WebhookPauseMailer],
})
export class WebhooksWorkerModule {}
