import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { InstitutionSsoController } from './institution-sso.controller';
import { OidcClient } from './oidc-client.service';
import { SsoRepository } from './sso.repository';
import { SsoService } from './sso.service';

/**
 * Single sign-on through OpenID Connect (openid-client): operators (OPERATOR_OIDC_*; their
 * routes in OperatorsModule) and each institution's staff (settings here; the portal's routes in
 * PortalModule). Sessions are made by the module of each sign-in, as for a password.
 */
@Module({
  imports: [AuthModule],
  controllers: [InstitutionSsoController],
  providers: [OidcClient, SsoRepository, SsoService],
  exports: [SsoService],
})
export class SsoModule {}
