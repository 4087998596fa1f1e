import { Module } from '@nestjs/common';
import { RedisModule } from '../common/redis.module';
import { ApiKeyCache } from './api-key-cache.service';
import { ApiKeyGuard } from './api-key.guard';
import { MeController } from './me.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { RateLimiterService } from './rate-limiter.service';
import { SecurityActivityService } from './security-activity.service';
import { SecurityEventsRepository } from './security-events.repository';

/**
 * API-key authentication, scopes and rate limits for the public API, and the security activity
 * log. Every module whose controllers use ApiKeyAuth imports it (the guard resolves there).
 */
@Module({
  imports: [RedisModule],
  controllers: [MeController],
  providers: [
    ApiKeyCache,
    ApiKeysRepository,
    ApiKeyGuard,
    RateLimiterService,
    ApiKeysService,
    SecurityActivityService,
    SecurityEventsRepository,
  ],
  exports: [
    ApiKeyCache,
    ApiKeysRepository,
    ApiKeyGuard,
    RateLimiterService,
    ApiKeysService,
    SecurityActivityService,
  ],
})
export class AuthModule {}
