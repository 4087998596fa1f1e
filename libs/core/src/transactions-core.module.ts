import { Module } from '@nestjs/common';
import { IngestionCoreModule } from './ingestion/ingestion-core.module';
import { MatchingCoreModule } from './matching/matching-core.module';
import { MerchantsCoreModule } from './merchants/merchants-core.module';
import { SettlementCoreModule } from './settlement/settlement-core.module';

const DOMAINS = [
  IngestionCoreModule,
  MatchingCoreModule,
  SettlementCoreModule,
  MerchantsCoreModule,
];

/**
 * The transaction domains together (ingestion, matching, settlement, merchant resolution), for the
 * modules that use several of them (the worker, admin, merchants); a module that needs one imports
 * that domain's module (the api's transactions module: ingestion and matching). Webhooks are
 * WebhooksCoreModule's, CSV uploads UploadsCoreModule's.
 */
@Module({ imports: DOMAINS, exports: DOMAINS })
export class TransactionsCoreModule {}
