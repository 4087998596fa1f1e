import { Module } from '@nestjs/common';
import { WebhooksCoreModule } from '@app/core';
import { PortalModule } from '../portal/portal.module';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Portal routes for the redemption webhook (settings, secret, deliveries, redelivery). */
@Module({
  imports: [PortalModule, WebhooksCoreModule],
  controllers: [WebhooksController],
  providers: [WebhooksService],
})
export class WebhooksModule {}
