import { Module } from '@nestjs/common';
import { ReportingModule } from '../reporting/reporting.module';
import { CsvUploadsService } from './csv-uploads.service';
import { PortalActivityController } from './portal-activity.controller';
import { PortalDashboardController } from './portal-dashboard.controller';
import { PortalAuthController } from './portal-auth.controller';
import { PortalKeysController } from './portal-keys.controller';
import { PortalSessionGuard } from './portal-session.guard';
import { PortalSessionsService } from './portal-sessions.service';
import { PortalUploadsController } from './portal-uploads.controller';

/** The portal's back end under /portal/api: sessions, CSRF, roles. Feature routes add controllers here. */
@Module({
  imports: [ReportingModule],
  controllers: [
    PortalAuthController,
    PortalKeysController,
    PortalActivityController,
    PortalUploadsController,
    PortalDashboardController,
  ],
  providers: [PortalSessionsService, PortalSessionGuard, CsvUploadsService],
  exports: [PortalSessionsService, PortalSessionGuard],
})
export class PortalModule {}
