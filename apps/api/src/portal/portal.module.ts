import { Module } from '@nestjs/common';
import { CsvUploadsService } from './csv-uploads.service';
import { PortalActivityController } from './portal-activity.controller';
import { PortalAuthController } from './portal-auth.controller';
import { PortalKeysController } from './portal-keys.controller';
import { PortalSessionGuard } from './portal-session.guard';
import { PortalSessionsService } from './portal-sessions.service';
import { PortalUploadsController } from './portal-uploads.controller';

/** The portal's back end under /portal/api: sessions, CSRF, roles. Feature routes add controllers here. */
@Module({
  controllers: [PortalAuthController, PortalKeysController, PortalActivityController, PortalUploadsController],
  providers: [PortalSessionsService, PortalSessionGuard, CsvUploadsService],
  exports: [PortalSessionsService, PortalSessionGuard],
})
export class PortalModule {}
