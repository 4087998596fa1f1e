import { Queue } from 'bullmq';
import type { RedisSettings } from '@app/config';
import type { QueueName } from './queues';
import { createRedis, queuePrefix, type RedisClient } from './redis';

const ENQUEUE_TIMEOUT_MS = 3_000;

/**
 * A BullMQ queue for producers on a request path (api enqueues, outbox relays): its connection
 * fails fast instead of queueing commands while Redis is down, its errors surface as failed adds
 * (not as an error per reconnect attempt), and every add has a deadline. Callers leave what could
 * not be added to their relay: PostgreSQL stays the source of truth.
 */
export class ProducerQueue<T> {
  private redis?: RedisClient;
  private queue?: Queue<T>;

  constructor(
    private readonly name: QueueName,
    private readonly settings: RedisSettings,
    private readonly prefix: string,
  ) {}

  /** The queue, connected on first use. */
  get bull(): Queue<T> {
    if (!this.queue) {
      this.redis = createRedis(this.settings, 'fast', {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
      });
      this.redis.on('error', () => undefined);
      this.queue = new Queue<T>(this.name, {
        connection: this.redis,
        prefix: queuePrefix(this.settings, this.prefix, this.name),
      });
      this.queue.on('error', () => undefined);
    }
    return this.queue;
  }

  /** The connection's state ('ready' when adds can go through). */
  get status(): string {
    void this.bull;
    return this.redis!.status;
  }

  /** Whether the connection is usable; waits up to waitMs for one still connecting. */
  async ready(waitMs = 0): Promise<boolean> {
    const redis = (void this.bull, this.redis!);
    if (redis.status === 'ready') return true;
    if (!waitMs || !['connecting', 'connect', 'wait', 'reconnecting'].includes(redis.status))
      return false;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => (redis.off('ready', onReady), resolve(false)), waitMs);
      const onReady = () => (clearTimeout(timer), resolve(true));
      redis.once('ready', onReady);
    });
  }

  /** Runs an add (or addBulk) on the queue, rejecting if it takes longer than the deadline. */
  async within<R>(add: (q: Queue<T>) => Promise<R>, ms = ENQUEUE_TIMEOUT_MS): Promise<R> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        add(this.bull),
        new Promise<never>(
          (_, reject) => (timer = setTimeout(() => reject(new Error('enqueue timed out')), ms)),
        ),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
    this.redis?.disconnect();
  }
}
