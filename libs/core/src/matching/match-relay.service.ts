import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { jobIds } from '@app/queue';
import { MatchQueue } from './match-queue';
import { MatchRelayRepository } from './match-relay.repository';

/** Most rows re-enqueued per pass (20 jobs); the next pass takes the rest. */
const MAX_PER_PASS = 20_000;
/** While the queue has a backlog, only rows this old are assumed lost (the backlog may still hold them). */
const BACKLOG_GRACE_FLOOR_MS = 300_000;

/**
 * The outbox relay of matching: transactions are committed before they are enqueued, so a Redis
 * outage or a crash between commit and enqueue leaves rows `received` with no job. Each pass
 * re-enqueues the oldest such rows older than the grace period (in MATCH_CHUNK jobs with ids from
 * their first row, so an unchanged set is not queued twice while BullMQ retains the job). While
 * the matching queue still has jobs waiting, rows are only assumed lost past a much longer grace,
 * so a busy queue is not flooded with copies of work it already holds. One pass at a time across
 * workers (a transaction-level advisory lock).
 */
@Injectable()
export class MatchRelayService {
  private readonly logger = new Logger('MatchRelay');

  constructor(
    private readonly db: DataSource,
    private readonly repo: MatchRelayRepository,
    private readonly queue: MatchQueue,
    private readonly config: AppConfig,
  ) {}

  /** One pass; returns the number of transactions re-enqueued (0 when Redis is unreachable). */
  async runOnce(): Promise<number> {
    const backlog = await this.queue.backlog();
    if (backlog === null) return 0;
    const grace = this.config.matching.relayGraceMs;
    const graceMs = backlog === 0 ? grace : Math.max(grace * 10, BACKLOG_GRACE_FLOOR_MS);
    return this.db.transaction(async (m) => {
      if (!(await this.repo.tryPassLock(m))) return 0;
      const ids = await this.repo.receivedOlderThan(graceMs, MAX_PER_PASS, m);
      if (!ids.length) return 0;
      const ok = await this.queue.enqueue(ids, { origin: 'relay' }, (first) =>
        jobIds.rematch(first),
      );
      if (ok)
        this.logger.warn(
          { count: ids.length },
          'relay re-enqueued transactions committed but not matched',
        );
      return ok ? ids.length : 0;
    });
  }
}
