import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { WebhooksCoreModule } from '../webhooks/webhooks-core.module';
import { StatementCloser } from './statement-closer.service';
import { StatementsRepository } from './statements.repository';

/**
 * Institution statements: the books, their movements and closing (api and worker); closing records
 * its `statement.closed` deliveries through WebhooksCoreModule and its audit entries through
 * AuditCoreModule.
 */
@Module({
  imports: [WebhooksCoreModule, AuditCoreModule],
  providers: [StatementsRepository, StatementCloser],
  exports: [StatementsRepository, StatementCloser],
})
export class StatementsCoreModule {}
