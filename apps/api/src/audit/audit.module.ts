import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AuditController } from './audit.controller';
import { AuditLogService } from './audit-log.service';

/** The audit log's reads under /admin/api/v1/audit (the writes are AuditTrail's, in libs/core). */
@Module({
  imports: [AuthModule],
  controllers: [AuditController],
  providers: [AuditLogService],
})
export class AuditModule {}
