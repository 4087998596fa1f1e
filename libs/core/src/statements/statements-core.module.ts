import { Module } from '@nestjs/common';
import { StatementCloser } from './statement-closer.service';
import { StatementsRepository } from './statements.repository';

/** Institution statements: the books, their movements and closing (api and worker). */
@Module({
  providers: [StatementsRepository, StatementCloser],
  exports: [StatementsRepository, StatementCloser],
})
export class StatementsCoreModule {}
