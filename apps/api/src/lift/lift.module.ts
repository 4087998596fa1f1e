import { Module } from '@nestjs/common';
import { HoldoutKeys } from '@app/core';
import { OperatorGuard } from '../admin/operator.guard';
import { AuthModule } from '../auth/auth.module';
import { LiftAdminController, LiftReportingController } from './lift.controller';
import { LiftRepository } from './lift.repository';
import { LiftService } from './lift.service';

/** The lift report of holdout offers (docs/lift.md): reporting and admin API; the portal's routes call LiftService. */
@Module({
  imports: [AuthModule],
  controllers: [LiftReportingController, LiftAdminController],
  providers: [LiftService, LiftRepository, HoldoutKeys, OperatorGuard],
  exports: [LiftService],
})
export class LiftModule {}
