import { Global, Module } from '@nestjs/common';
import { ApiKeyGuard } from './api-key.guard';
import { MeController } from './me.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { RateLimiterService } from './rate-limiter.service';
import { SecurityActivityService } from './security-activity.service';

/** API-key authentication, scopes and rate limits for the public API. */
@Global()
@Module({
  controllers: [MeController],
  providers: [
    ApiKeysRepository,
    ApiKeyGuard,
    RateLimiterService,
    ApiKeysService,
    SecurityActivityService,
  ],
  exports: [
    ApiKeysRepository,
    ApiKeyGuard,
    RateLimiterService,
    ApiKeysService,
    SecurityActivityService,
  ],
})
export class AuthModule {}
