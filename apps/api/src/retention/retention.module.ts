import { Module } from '@nestjs/common';
import { DataLifecycleCoreModule } from '@app/core';
import { OperatorGuard } from '../admin/operator.guard';
import { AuthModule } from '../auth/auth.module';
import { RetentionController } from './retention.controller';
import { RetentionService } from './retention.service';

/** Retention's report and legal holds, for operators under /admin/api/v1. */
@Module({
  imports: [AuthModule, DataLifecycleCoreModule],
  controllers: [RetentionController],
  providers: [OperatorGuard, RetentionService],
})
export class RetentionModule {}
