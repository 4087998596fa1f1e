import { Cluster, Redis } from 'ioredis';
import { QueueKeys } from 'bullmq';
import { QUEUES } from './queues';
import { bullOptions, createRedis, queuePrefix } from './redis';

const one = { url: 'redis://127.0.0.1:6379' };
const cluster = {
  url: 'redis://ignored:6379',
  cluster: {
    nodes: [{ host: '127.0.0.1', port: 7101 }],
    username: 'offers',
    password: 'secret',
    tls: true,
  },
};

/** The part of a key a cluster hashes: the first {…} with something inside, else the whole key. */
const hashed = (key: string) => /\{([^}]+)\}/.exec(key)?.[1] ?? key;

describe('Redis connections and queue keys', () => {
  it('on one Redis a queue keeps QUEUE_PREFIX as its prefix (keys as before)', () => {
    for (const name of Object.values(QUEUES))
      expect(queuePrefix(one, 'offers', name)).toBe('offers');
  });

  it('on a cluster every key of a queue hashes on the queue’s own tag: one slot per queue, the queues apart', () => {
    for (const name of Object.values(QUEUES)) {
      const keys = new QueueKeys(queuePrefix(cluster, 'offers', name));
      const some = [
        ...Object.values(keys.getKeys(name)).filter(Boolean),
        keys.toKey(name, 'match-0190d4c2'), // a job's hash
        keys.toKey(name, 'match-0190d4c2:lock'),
        keys.toKey(name, 'repeat:settlement-run'),
      ];
      expect(new Set(some.map(hashed))).toEqual(new Set([name]));
    }
    const tags = Object.values(QUEUES).map((name) => hashed(queuePrefix(cluster, 'offers', name)));
    expect(new Set(tags).size).toBe(Object.values(QUEUES).length);
  });

  it('connects to the cluster, with its user, password and TLS, when one is set; REDIS_URL otherwise', () => {
    const c = createRedis(cluster, 'fast', { lazyConnect: true });
    const r = createRedis(one, 'fast', { lazyConnect: true });
    try {
      expect(c).toBeInstanceOf(Cluster);
      expect((c as Cluster).options.redisOptions).toMatchObject({
        username: 'offers',
        password: 'secret',
        tls: {},
        maxRetriesPerRequest: 1,
      });
      expect((c as Cluster).options.enableOfflineQueue).toBe(false);
      expect(r).toBeInstanceOf(Redis);
      expect((r as Redis).options).toMatchObject({ host: '127.0.0.1', port: 6379 });
    } finally {
      c.disconnect();
      r.disconnect();
    }
  });

  it('BullMQ gets a cluster client (it cannot make one from settings) that retries until Redis answers', () => {
    const { connection, prefix } = bullOptions(cluster, 'offers', QUEUES.webhooks);
    try {
      expect(connection).toBeInstanceOf(Cluster);
      expect((connection as Cluster).options.redisOptions?.maxRetriesPerRequest).toBeNull();
      expect(prefix).toBe('offers:{webhooks}');
    } finally {
      (connection as Cluster).disconnect();
    }
    expect(bullOptions(one, 'offers', QUEUES.webhooks)).toEqual({
      connection: { url: one.url, maxRetriesPerRequest: null },
      prefix: 'offers',
    });
  });
});
