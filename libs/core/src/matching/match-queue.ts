import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { AppConfig } from '@app/config';
import { createRedis, queueBacklog, throttled, jobIds, MATCH_CHUNK, MATCH_JOB_NAME, MATCH_JOB_OPTIONS, MatchJob, QUEUES } from '@app/queue';

const ENQUEUE_TIMEOUT_MS = 3_000;

/**
 * Hands committed transactions to the matching queue: one job per chunk of up to MATCH_CHUNK ids,
 * added in bulk. Called only after the rows are committed (PostgreSQL is the source of truth), and
 * never fails its caller: when Redis is unreachable the rows simply stay `received` and the worker's
 * relay enqueues them later. Its connection fails fast instead of queueing commands while Redis is
 * down.
 */
@Injectable()
export class MatchQueue implements OnApplicationShutdown {
  private readonly logger = new Logger('MatchQueue');
  private redis?: Redis;
  private queue?: Queue<MatchJob>;
  /** At most one warning a second. */
  private readonly warn = throttled((m) => this.logger.warn(m));

  constructor(private readonly config: AppConfig) {}

  private get q(): Queue<MatchJob> {
    if (!this.queue) {
      this.redis = createRedis(this.config.redisUrl, 'fast', { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      this.redis.on('error', () => undefined); // reported by enqueue failures, not per reconnect attempt
      this.queue = new Queue<MatchJob>(QUEUES.matching, { connection: this.redis, prefix: this.config.queuePrefix });
      this.queue.on('error', () => undefined);
    }
    return this.queue;
  }

  /** Opens the connection early (the api calls this at boot so the first request does not pay for it). */
  warmUp(): void {
    void this.q;
  }

  /**
   * Enqueues matching for the ids. Resolves true when every chunk was added, false when Redis was
   * unavailable (logged; the relay will pick the rows up). Never rejects.
   */
  async enqueue(ids: readonly string[], meta: Omit<MatchJob, 'transactionIds'> = {}, idOf: (firstId: string) => string = jobIds.match): Promise<boolean> {
    if (!ids.length) return true;
    const queue = this.q;
    if (this.redis!.status !== 'ready') {
      this.warn(`redis not ready (${this.redis!.status}); ${ids.length} transactions left for the relay`);
      return false;
    }
    const jobs = [];
    for (let i = 0; i < ids.length; i += MATCH_CHUNK) {
      const chunk = ids.slice(i, i + MATCH_CHUNK);
      jobs.push({ name: MATCH_JOB_NAME, data: { transactionIds: chunk, ...meta }, opts: { ...MATCH_JOB_OPTIONS, jobId: idOf(chunk[0]) } });
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        queue.addBulk(jobs),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS))),
      ]);
      return true;
    } catch (e) {
      this.warn(`could not enqueue ${ids.length} transactions (${(e as Error).message}); left for the relay`);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Jobs waiting to run (waiting, prioritized, delayed); null when Redis cannot tell. */
  backlog(): Promise<number | null> {
    return queueBacklog(this.q);
  }

  /** After every module's onModuleDestroy, so the ingestion buffer's last flush gets through. */
  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
    this.redis?.disconnect();
  }
}
