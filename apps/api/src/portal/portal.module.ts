import { Module } from '@nestjs/common';
import { CsvUploadsRepository, WebhooksCoreModule } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { ReportingModule } from '../reporting/reporting.module';
import { CsvUploadsService } from './csv-uploads.service';
import { PortalActivityController } from './portal-activity.controller';
import { PortalActivityRepository } from './portal-activity.repository';
import { PortalDashboardController } from './portal-dashboard.controller';
import { PortalAuthController } from './portal-auth.controller';
import { PortalKeysController } from './portal-keys.controller';
import { PortalSessionGuard } from './portal-session.guard';
import { PortalSessionsService } from './portal-sessions.service';
import { PortalSessionsRepository } from './portal-sessions.repository';
import { LoginAttemptsRepository } from './login-attempts.repository';
import { PortalUploadsController } from './portal-uploads.controller';
import { PortalWebhooksController } from './webhooks/portal-webhooks.controller';
import { PortalWebhooksService } from './webhooks/portal-webhooks.service';
import { WebhookSettingsRepository } from './webhooks/webhook-settings.repository';

/** The portal's back end under /portal/api: sessions, CSRF, roles. Feature routes add controllers here. */
@Module({
  imports: [ReportingModule, WebhooksCoreModule, AuthModule],
  controllers: [
    PortalAuthController,
    PortalKeysController,
    PortalActivityController,
    PortalUploadsController,
    PortalDashboardController,
    PortalWebhooksController,
  ],
  providers: [
    PortalSessionsService,
    PortalSessionsRepository,
    LoginAttemptsRepository,
    PortalSessionGuard,
    CsvUploadsService,
    CsvUploadsRepository,
    PortalActivityRepository,
    PortalWebhooksService,
    WebhookSettingsRepository,
  ],
  exports: [PortalSessionsService, PortalSessionGuard, PortalWebhooksService],
})
export class PortalModule {}
