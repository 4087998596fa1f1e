import { Module } from '@nestjs/common';
import { AuditLogRepository } from './audit-log.repository';
import { AuditTrail } from './audit-trail.service';

/** The audit log: the append every admin action makes, its reads and the chain check. */
@Module({
  providers: [AuditLogRepository, AuditTrail],
  exports: [AuditLogRepository, AuditTrail],
})
export class AuditCoreModule {}
