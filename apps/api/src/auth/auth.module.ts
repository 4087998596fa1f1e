import { Module } from '@nestjs/common';
import { AuditCoreModule, OperatorsCoreModule } from '@app/core';
import { RedisModule } from '../common/redis.module';
import { ApiKeyCache } from './api-key-cache.service';
import { ApiKeyGuard } from './api-key.guard';
import { LoginAttemptsRepository } from './login-attempts.repository';
import { LoginLockout } from './login-lockout.service';
import { MeController } from './me.controller';
import { OperatorCredentials } from './operator-credentials.service';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { RateLimiterService } from './rate-limiter.service';
import { SecurityActivityService } from './security-activity.service';
import { SecurityEventsRepository } from './security-events.repository';

/**
 * API-key authentication, scopes and rate limits for the public API, the security activity log,
 * the sign-in lockout, and the admin API's callers (break-glass token, operator tokens and
 * sessions) with the audit log they act under. Every module whose controllers use ApiKeyAuth or
 * OperatorAuth imports it (the guards resolve there).
 */
@Module({
  imports: [RedisModule, AuditCoreModule, OperatorsCoreModule],
  controllers: [MeController],
  providers: [
    ApiKeyCache,
    ApiKeysRepository,
    ApiKeyGuard,
    RateLimiterService,
    ApiKeysService,
    SecurityActivityService,
    SecurityEventsRepository,
    LoginAttemptsRepository,
    LoginLockout,
    OperatorCredentials,
  ],
  exports: [
    AuditCoreModule,
    OperatorsCoreModule,
    LoginLockout,
    OperatorCredentials,
    ApiKeyCache,
    ApiKeysRepository,
    ApiKeyGuard,
    RateLimiterService,
    ApiKeysService,
    SecurityActivityService,
  ],
})
export class AuthModule {}
