import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { createRedis, REDIS, type RedisClient } from '@app/queue';

/** The api's request-path Redis connection (rate-limit counters); fails fast when Redis is down. */
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (c: AppConfig) => createRedis(c.redis, 'fast'),
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
