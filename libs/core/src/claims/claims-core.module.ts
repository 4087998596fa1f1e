import { Module } from '@nestjs/common';
import { IngestionCoreModule } from '../ingestion/ingestion-core.module';
import { MatchingCoreModule } from '../matching/matching-core.module';
import { WebhooksCoreModule } from '../webhooks/webhooks-core.module';
import { ClaimsRepository } from './claims.repository';
import { ClaimsService } from './claims.service';

/**
 * Claims for missing rewards: filed and decided through matching's entry points (the stored
 * re-run and simulate), the evidence stored by ingestion's store on approval, `claim.resolved`
 * recorded through the webhooks.
 */
@Module({
  imports: [MatchingCoreModule, IngestionCoreModule, WebhooksCoreModule],
  providers: [ClaimsRepository, ClaimsService],
  exports: [ClaimsService],
})
export class ClaimsCoreModule {}
