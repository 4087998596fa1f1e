import { Module } from '@nestjs/common';
import { DataLifecycleService } from './data-lifecycle.service';
import { LegalHoldsRepository } from './legal-holds.repository';
import { PartitionMover } from './partition-mover';
import { PartitionsRepository } from './partitions.repository';

/** Partitions, retention and legal holds (api: the report and holds; worker: the hourly run; cli: the move). */
@Module({
  providers: [PartitionsRepository, LegalHoldsRepository, DataLifecycleService, PartitionMover],
  exports: [PartitionsRepository, LegalHoldsRepository, DataLifecycleService, PartitionMover],
})
export class DataLifecycleCoreModule {}
