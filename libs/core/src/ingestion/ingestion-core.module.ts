import { Module } from '@nestjs/common';
import { MatchingCoreModule } from '../matching/matching-core.module';
import { IngestionService } from './ingestion.service';
import { TransactionStore } from './transaction-store';

/** Ingestion: the group-committed insert of transactions and their hand-off to matching's queue. */
@Module({
  imports: [MatchingCoreModule],
  providers: [TransactionStore, IngestionService],
  exports: [TransactionStore, IngestionService],
})
export class IngestionCoreModule {}
