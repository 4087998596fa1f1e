import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig } from '@app/config';
import { createRedis, REDIS } from '@app/queue';

/** The api's request-path Redis connection (rate-limit counters); fails fast when Redis is down. */
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (c: AppConfig) => createRedis(c.redisUrl, 'fast'),
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
