import type { ConnectionOptions } from 'bullmq';
import IORedis, { Redis, RedisOptions } from 'ioredis';

/**
 * A Redis connection. BullMQ workers need maxRetriesPerRequest: null; request-path users
 * (rate limiting, enqueueing from the api) want commands to fail fast when Redis is down
 * instead of queueing forever.
 */
export function createRedis(
  url: string,
  role: 'blocking' | 'fast' = 'fast',
  extra: RedisOptions = {},
): Redis {
  return new IORedis(url, {
    lazyConnect: false,
    maxRetriesPerRequest: role === 'blocking' ? null : 1,
    enableOfflineQueue: role === 'blocking',
    connectTimeout: 5_000,
    ...extra,
  });
}

export const REDIS = Symbol('REDIS');

/** BullMQ connection settings: BullMQ creates and owns its connections (workers block, so no retry cap). */
export function bullConnection(url: string): ConnectionOptions {
  return { url, maxRetriesPerRequest: null };
}
