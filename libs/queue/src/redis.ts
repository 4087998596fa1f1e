import { Queue } from 'bullmq';
import type { ConnectionOptions } from 'bullmq';
import IORedis, { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import type { RedisSettings } from '@app/config';
import type { QueueName } from './queues';

/** A connection to Redis: one server, or a Redis Cluster (the same commands; keys route by slot). */
export type RedisClient = Redis | Cluster;

/** What a caller may change of a connection's defaults, on one Redis or a cluster alike. */
export interface RedisConnectOptions {
  /** Connect on the first command or on connect() instead of at once. */
  lazyConnect?: boolean;
  /** Queue commands while disconnected (else they fail at once). */
  enableOfflineQueue?: boolean;
  /** Retries of a command across reconnects; null = until it goes through (BullMQ workers). */
  maxRetriesPerRequest?: number | null;
  /** Delay before reconnecting after the n-th failure; null = give up (a cluster's whole client). */
  retryStrategy?: (times: number) => number | null;
}

/**
 * The one place Redis connections are made (REDIS_URL, or REDIS_CLUSTER_NODES when set). BullMQ
 * workers need maxRetriesPerRequest: null; request-path users (rate limiting, enqueueing from the
 * api) want commands to fail fast when Redis is down instead of queueing forever.
 *
 * On a cluster, reconnect and failover are the client's (ioredis `Cluster`): a MOVED or ASK answer
 * re-routes the command and refreshes the slot map, a CLUSTERDOWN or TRYAGAIN is retried after
 * 100 ms, a lost node makes it rediscover the cluster from the nodes it knows (every 100 ms + 2 ms
 * per attempt, at most 2 s apart), and the slot map is refreshed every 5 s besides, so a replica
 * promoted by the cluster is found without a restart (docs/deployment.md, "Redis Cluster").
 */
export function createRedis(
  redis: RedisSettings,
  role: 'blocking' | 'fast' = 'fast',
  extra: RedisConnectOptions = {},
): RedisClient {
  const { retryStrategy, ...options } = {
    lazyConnect: false,
    maxRetriesPerRequest: role === 'blocking' ? null : 1,
    enableOfflineQueue: role === 'blocking',
    ...extra,
  };
  if (!redis.cluster)
    return new IORedis(redis.url, {
      connectTimeout: 5_000,
      ...options,
      ...(retryStrategy ? { retryStrategy } : {}),
    });
  const { nodes, username, password, tls } = redis.cluster;
  const redisOptions: RedisOptions = {
    connectTimeout: 5_000,
    maxRetriesPerRequest: options.maxRetriesPerRequest,
    username,
    password,
    ...(tls ? { tls: {} } : {}),
  };
  const clusterOptions: ClusterOptions = {
    lazyConnect: options.lazyConnect,
    enableOfflineQueue: options.enableOfflineQueue,
    ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
    redisOptions,
    // The cluster answers with its nodes' addresses; with TLS the certificates name the host
    // names, so they are used as given rather than resolved first.
    ...(tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
    slotsRefreshTimeout: 2_000,
    slotsRefreshInterval: 5_000,
  };
  return new Cluster(nodes, clusterOptions);
}

export const REDIS = Symbol('REDIS');

/**
 * A queue's key prefix. On one Redis: QUEUE_PREFIX, as always. On a cluster the queue's own hash
 * tag follows (`<QUEUE_PREFIX>:{matching}`): BullMQ's scripts touch several keys of a queue at
 * once, which a cluster allows only within one hash slot, and a tag per queue spreads the queues
 * over the shards. (ioredis' keyPrefix cannot be used: BullMQ refuses it.)
 */
export function queuePrefix(redis: RedisSettings, prefix: string, queue: QueueName): string {
  return redis.cluster ? `${prefix}:{${queue}}` : prefix;
}

/**
 * A queue's BullMQ options: its connection and its prefix. On one Redis, connection settings
 * (BullMQ opens and closes the connection, workers included). On a cluster BullMQ takes only a
 * client, never closes it, and duplicates it for each worker: whoever builds the queue from
 * these options disconnects it after closing (`forceDisconnectOnShutdown` for @nestjs/bullmq,
 * closeQueue otherwise).
 */
export function bullOptions(
  redis: RedisSettings,
  prefix: string,
  queue: QueueName,
): { connection: ConnectionOptions; prefix: string } {
  return {
    connection: redis.cluster
      ? (createRedis(redis, 'blocking') as ConnectionOptions)
      : { url: redis.url, maxRetriesPerRequest: null },
    prefix: queuePrefix(redis, prefix, queue),
  };
}

/** A queue for looking at or adding to (operators' dashboard, tests): close it with closeQueue. */
export function openQueue<T = unknown>(
  redis: RedisSettings,
  prefix: string,
  queue: QueueName,
): Queue<T> {
  return new Queue<T>(queue, bullOptions(redis, prefix, queue));
}

/** Closes a queue of openQueue and its connection (on a cluster BullMQ leaves that open). */
export async function closeQueue(queue: Queue): Promise<void> {
  await queue.close().catch(() => undefined);
  await queue.disconnect().catch(() => undefined);
}
