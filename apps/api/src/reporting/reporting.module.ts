import { Module } from '@nestjs/common';
import { ReplicaReader } from '@app/db';
import { AuthModule } from '../auth/auth.module';
import { ReportingController } from './reporting.controller';
import { ReportingRepository } from './reporting.repository';
import { ReportingService } from './reporting.service';

/** Redemptions, the settlement ledger and the engagement funnel (scope `reporting`). */
@Module({
  imports: [AuthModule],
  controllers: [ReportingController],
  providers: [ReportingService, ReportingRepository, ReplicaReader],
  exports: [ReportingService, ReportingRepository],
})
export class ReportingModule {}
