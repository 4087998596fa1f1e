import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { AppConfig } from '@app/config';
import {
  matchedTransactions,
  MatchFailuresService,
  MatchingService,
  matchingChunkSeconds,
  MatchQueue,
} from '@app/core';
import { isOutageError } from '@app/db';
import { jobIds, MATCH_SPLIT_ATTEMPTS, MatchJob, QUEUES } from '@app/queue';
import { Counter, Gauge, register } from 'prom-client';

const quarantinedTotal =
  (register.getSingleMetric('matching_transactions_quarantined_total') as Counter | undefined) ??
  new Counter({
    name: 'matching_transactions_quarantined_total',
    help: 'Transactions marked match_failed by this worker since it started',
  });

/**
 * Matching jobs: one chunk of up to MATCH_CHUNK transaction ids per job, matched set-based by
 * MatchingService. Safe to run twice (only `received` rows are claimed); ids unknown to this
 * database are ignored. A chunk that still fails on its last attempt is split in two and
 * re-enqueued (halves get MATCH_SPLIT_ATTEMPTS), so a single bad row ends up alone instead of
 * holding back its whole chunk; a single transaction that still fails (for a reason other than
 * an outage) is quarantined as `match_failed` with its reason, out of every later pass until an
 * operator retries it (admin API), and counted in the matching_failed_transactions metric.
 */
@Processor(QUEUES.matching)
export class MatchingProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger('MatchingProcessor');

  constructor(
    private readonly matching: MatchingService,
    private readonly queue: MatchQueue,
    private readonly config: AppConfig,
    private readonly failures: MatchFailuresService,
  ) {
    super();
    // The gauge reads the quarantine at scrape time (one count over a partial index).
    if (!register.getSingleMetric('matching_failed_transactions'))
      new Gauge({
        name: 'matching_failed_transactions',
        help: 'Transactions quarantined as match_failed (matching failed on them alone), waiting for an operator',
        collect: async function (this: Gauge) {
          this.set(await failures.count());
        },
      });
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.workerConcurrency;
  }

  async process(job: Job<MatchJob>): Promise<unknown> {
    const ids = job.data.transactionIds ?? [];
    const started = Date.now();
    try {
      const stats = await this.matching.matchChunk(ids);
      const results = matchedTransactions();
      results.inc({ result: 'matched' }, stats.matched);
      results.inc({ result: 'goal_counted' }, stats.countedTowardGoal);
      results.inc({ result: 'unmatched' }, stats.unmatched);
      results.inc({ result: 'merchant_unresolved' }, stats.merchantUnresolved);
      results.inc({ result: 'refund' }, stats.refunds);
      matchingChunkSeconds().observe((Date.now() - started) / 1000);
      if (stats.claimed < stats.requested) {
        this.logger.debug(
          { jobId: job.id, requested: stats.requested, claimed: stats.claimed },
          'ids already processed, held by another run, or not in this database',
        );
      }
      this.logger.log(
        {
          jobId: job.id,
          origin: job.data.origin,
          requestIds: job.data.requestIds,
          ...stats,
          totalMs: Date.now() - started,
        },
        'chunk matched',
      );
      return stats;
    } catch (e) {
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (last && ids.length === 1 && !isOutageError(e)) {
        const quarantined = await this.failures.quarantine(ids[0], e);
        if (quarantined) quarantinedTotal.inc();
        return { quarantined };
      }
      if (last && ids.length > 1) {
        const half = Math.ceil(ids.length / 2);
        const parent = String(job.id);
        const [a, b] = await Promise.all([
          this.queue.enqueue(
            ids.slice(0, half),
            { origin: 'split', requestIds: job.data.requestIds },
            () => jobIds.split(parent, 'a'),
            MATCH_SPLIT_ATTEMPTS,
          ),
          this.queue.enqueue(
            ids.slice(half),
            { origin: 'split', requestIds: job.data.requestIds },
            () => jobIds.split(parent, 'b'),
            MATCH_SPLIT_ATTEMPTS,
          ),
        ]);
        this.logger.error(
          { jobId: job.id, err: (e as Error).message, size: ids.length, requeued: a && b },
          'chunk failed on every attempt; split in two',
        );
        if (a && b) return { split: true };
      }
      throw e;
    }
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<MatchJob> | undefined, err: Error): void {
    this.logger.warn(
      { jobId: job?.id, attempt: job?.attemptsMade, err: err.message },
      'matching attempt failed',
    );
  }
}
