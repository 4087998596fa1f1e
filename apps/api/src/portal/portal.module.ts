import { Module } from '@nestjs/common';
import { CsvUploadsRepository } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { ClaimsModule } from '../claims/claims.module';
import { LiftModule } from '../lift/lift.module';
import { ReportingModule } from '../reporting/reporting.module';
import { StatementsModule } from '../statements/statements.module';
import { CsvUploadsService } from './csv-uploads.service';
import { PortalActivityController } from './portal-activity.controller';
import { PortalClaimsController } from './portal-claims.controller';
import { PortalActivityRepository } from './portal-activity.repository';
import { PortalDashboardController } from './portal-dashboard.controller';
import { PortalAuthController } from './portal-auth.controller';
import { PortalKeysController } from './portal-keys.controller';
import { PortalLiftController } from './portal-lift.controller';
import { PortalStatementsController } from './portal-statements.controller';
import { PortalSessionGuard } from './portal-session.guard';
import { PortalSessionsService } from './portal-sessions.service';
import { PortalSessionsRepository } from './portal-sessions.repository';
import { PortalUploadsController } from './portal-uploads.controller';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { PortalWebhooksController } from './portal-webhooks.controller';
import { SsoModule } from '../sso/sso.module';
import { PortalOidcController } from './portal-oidc.controller';

/** The portal's back end under /portal/api: sessions, CSRF, roles. Feature routes add controllers here. */
@Module({
  imports: [
    ReportingModule,
    WebhooksModule,
    LiftModule,
    StatementsModule,
    ClaimsModule,
    AuthModule,
    SsoModule,
  ],
  controllers: [
    PortalAuthController,
    PortalOidcController,
    PortalKeysController,
    PortalActivityController,
    PortalUploadsController,
    PortalDashboardController,
    PortalWebhooksController,
    PortalLiftController,
    PortalStatementsController,
    PortalClaimsController,
  ],
  providers: [
    PortalSessionsService,
    PortalSessionsRepository,
    PortalSessionGuard,
    CsvUploadsService,
    CsvUploadsRepository,
    PortalActivityRepository,
  ],
  exports: [PortalSessionsService, PortalSessionGuard],
})
export class PortalModule {}
