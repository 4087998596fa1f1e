import { Module } from '@nestjs/common';
import { HoldoutKeys } from '@app/core';
import { OperatorGuard } from '../admin/operator.guard';
import { AuthModule } from '../auth/auth.module';
import { PortalModule } from '../portal/portal.module';
import { LiftAdminController, LiftReportingController } from './lift.controller';
import { LiftRepository } from './lift.repository';
import { LiftService } from './lift.service';
import { PortalLiftController } from './portal-lift.controller';

/** The lift report of holdout offers (docs/lift.md): reporting API, admin API and portal. */
@Module({
  imports: [AuthModule, PortalModule],
  controllers: [LiftReportingController, LiftAdminController, PortalLiftController],
  providers: [LiftService, LiftRepository, HoldoutKeys, OperatorGuard],
  exports: [LiftService],
})
export class LiftModule {}
