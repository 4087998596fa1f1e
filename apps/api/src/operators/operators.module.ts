import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { OperatorAuthController } from './operator-auth.controller';
import { OperatorSessionsService } from './operator-sessions.service';
import { OperatorsController } from './operators.controller';
import { OperatorsService } from './operators.service';

/** Named operators (docs/operators.md): accounts, roles, personal tokens, console sign-in. */
@Module({
  imports: [AuthModule],
  controllers: [OperatorsController, OperatorAuthController],
  providers: [OperatorsService, OperatorSessionsService],
  exports: [OperatorsService],
})
export class OperatorsModule {}
