import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { SsoModule } from '../sso/sso.module';
import { OperatorOidcController } from './operator-oidc.controller';
import { OperatorAuthController } from './operator-auth.controller';
import { OperatorSessionsService } from './operator-sessions.service';
import { OperatorsController } from './operators.controller';
import { OperatorsService } from './operators.service';

/** Named operators (docs/operators.md): accounts, roles, personal tokens, console sign-in (password, or single sign-on through SsoModule). */
@Module({
  imports: [AuthModule, SsoModule],
  controllers: [OperatorsController, OperatorAuthController, OperatorOidcController],
  providers: [OperatorsService, OperatorSessionsService],
  exports: [OperatorsService],
})
export class OperatorsModule {}
