import { Module } from '@nestjs/common';
import { PortalAuthController } from './portal-auth.controller';
import { PortalSessionGuard } from './portal-session.guard';
import { PortalSessionsService } from './portal-sessions.service';

/** The portal's back end under /portal/api: sessions, CSRF, roles. Feature routes add controllers here. */
@Module({
  controllers: [PortalAuthController],
  providers: [PortalSessionsService, PortalSessionGuard],
  exports: [PortalSessionsService, PortalSessionGuard],
})
export class PortalModule {}
