import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import {
  ProducerQueue,
  queueBacklog,
  throttled,
  jobIds,
  MATCH_CHUNK,
  MATCH_JOB_NAME,
  MATCH_JOB_OPTIONS,
  MatchJob,
  QUEUES,
} from '@app/queue';

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
  private readonly producer: ProducerQueue<MatchJob>;
  /** At most one warning a second. */
  private readonly warn = throttled((m) => this.logger.warn(m));

  constructor(config: AppConfig) {
    this.producer = new ProducerQueue<MatchJob>(QUEUES.matching, config.redis, config.queuePrefix);
  }

  /** Opens the connection early (the api calls this at boot so the first request does not pay for it). */
  warmUp(): void {
    void this.producer.bull;
  }

  /**
   * Enqueues matching for the ids. Resolves true when every chunk was added, false when Redis was
   * unavailable (logged; the relay will pick the rows up). Never rejects.
   */
  async enqueue(
    ids: readonly string[],
    meta: Omit<MatchJob, 'transactionIds'> = {},
    idOf: (firstId: string) => string = jobIds.match,
    attempts: number = MATCH_JOB_OPTIONS.attempts,
  ): Promise<boolean> {
    if (!ids.length) return true;
    if (!(await this.producer.ready())) {
      this.warn(
        `redis not ready (${this.producer.status}); ${ids.length} transactions left for the relay`,
      );
      return false;
    }
    const chunks = Array.from({ length: Math.ceil(ids.length / MATCH_CHUNK) }, (_, n) =>
      ids.slice(n * MATCH_CHUNK, (n + 1) * MATCH_CHUNK),
    );
    const jobs = chunks.map((chunk) => ({
      name: MATCH_JOB_NAME,
      data: { transactionIds: chunk, ...meta },
      opts: { ...MATCH_JOB_OPTIONS, attempts, jobId: idOf(chunk[0]) },
    }));
    try {
      await this.producer.within((q) => q.addBulk(jobs));
      return true;
    } catch (e) {
      this.warn(
        `could not enqueue ${ids.length} transactions (${(e as Error).message}); left for the relay`,
      );
      return false;
    }
  }

  /** Jobs waiting to run (waiting, prioritized, delayed); null when Redis cannot tell. */
  backlog(): Promise<number | null> {
    return queueBacklog(this.producer.bull);
  }

  /** After every module's onModuleDestroy, so the ingestion buffer's last flush gets through. */
  async onApplicationShutdown(): Promise<void> {
    await this.producer.close();
  }
}
