import { Module } from '@nestjs/common';
import { StatementsCoreModule } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { StatementsAdminController } from './statements-admin.controller';
import { StatementsController } from './statements.controller';
import { StatementsService } from './statements.service';

/** Institution statements (scope `reporting`), and the operators' close and merchant invoices. */
@Module({
  imports: [AuthModule, StatementsCoreModule],
  controllers: [StatementsController, StatementsAdminController],
  providers: [StatementsService],
  exports: [StatementsService],
})
export class StatementsModule {}
