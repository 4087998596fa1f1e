import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { HoldoutKeys } from '../holdout-keys';
import { CardholderErasureService } from './cardholder-erasure.service';
import { ErasureRepository } from './erasure.repository';
import { RedisJobScrubber } from './redis-job-scrubber';

/** The right to erasure and of access (docs/privacy.md): requests in the api, erasure in the worker. */
@Module({
  imports: [AuditCoreModule],
  providers: [ErasureRepository, RedisJobScrubber, CardholderErasureService, HoldoutKeys],
  exports: [ErasureRepository, CardholderErasureService],
})
export class PrivacyCoreModule {}
