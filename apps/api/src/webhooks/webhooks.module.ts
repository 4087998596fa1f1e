import { Module } from '@nestjs/common';
import { WebhooksCoreModule } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookSettingsRepository } from './webhook-settings.repository';
import { WebhookSettingsService } from './webhook-settings.service';

/**
 * Webhooks in the api: an institution's endpoint (URL, secrets, event types, headers, certificate,
 * rate cap, pause) and its deliveries, attempts and replays. No routes of its own: the portal's and
 * the operators' controllers call these services (delivery itself is the worker's, in
 * libs/core/src/webhooks).
 */
@Module({
  imports: [WebhooksCoreModule, AuthModule],
  providers: [WebhookSettingsService, WebhookDeliveriesService, WebhookSettingsRepository],
  exports: [WebhookSettingsService, WebhookDeliveriesService],
})
export class WebhooksModule {}
