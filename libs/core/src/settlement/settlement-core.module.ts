import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { WebhooksCoreModule } from '../webhooks/webhooks-core.module';
import { SettlementRepository } from './settlement.repository';
import { SettlementService } from './settlement.service';

/** Settlement runs (pending → settled) and their `redemption.settled` events. */
@Module({
  imports: [WebhooksCoreModule, AuditCoreModule],
  providers: [SettlementRepository, SettlementService],
  exports: [SettlementService],
})
export class SettlementCoreModule {}
