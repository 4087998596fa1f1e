import { Module } from '@nestjs/common';
import { WebhooksCoreModule } from '../webhooks/webhooks-core.module';
import { StatementCloser } from './statement-closer.service';
import { StatementsRepository } from './statements.repository';

/**
 * Institution statements: the books, their movements and closing (api and worker); closing records
 * its `statement.closed` deliveries through WebhooksCoreModule.
 */
@Module({
  imports: [WebhooksCoreModule],
  providers: [StatementsRepository, StatementCloser],
  exports: [StatementsRepository, StatementCloser],
})
export class StatementsCoreModule {}
