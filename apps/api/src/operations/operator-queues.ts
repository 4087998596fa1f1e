import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { Gauge, register } from 'prom-client';
import { AppConfig } from '@app/config';
import { closeQueue, openQueue, QUEUES } from '@app/queue';

/** Job states counted on /metrics (BullMQ's names). */
const STATES = ['wait', 'prioritized', 'delayed', 'active', 'failed'] as const;
const SCRAPE_TIMEOUT_MS = 2_000;

/** The live instances (one per api application; tests may run several in one process). */
const live = new Set<OperatorQueues>();
const liveQueues = () => [...live].flatMap((o) => o.queues);

/**
 * Every queue of the service, for operators: the queue dashboard (Bull Board) and the queue
 * gauges on /metrics read them. The api only looks; the worker consumes.
 */
@Injectable()
export class OperatorQueues implements OnModuleDestroy {
  readonly queues: Queue[];

  constructor(config: AppConfig) {
    this.queues = Object.values(QUEUES).map((name) =>
      openQueue(config.redis, config.queuePrefix, name),
    );
    registerQueueGauges();
    live.add(this);
  }

  async onModuleDestroy(): Promise<void> {
    live.delete(this);
    await Promise.all(this.queues.map(closeQueue));
  }
}

/** Gauges read at scrape time (once per process; they read the live OperatorQueues). */
function registerQueueGauges(): void {
  if (register.getSingleMetric('queue_jobs')) return;
  new Gauge({
    name: 'queue_jobs',
    help: 'Jobs per queue and state (wait, prioritized, delayed, active, failed)',
    labelNames: ['queue', 'state'],
    async collect() {
      for (const q of liveQueues()) {
        const counts = await withTimeout(q.getJobCounts(...STATES)).catch(() => null);
        if (counts) for (const s of STATES) this.set({ queue: q.name, state: s }, counts[s] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'queue_oldest_waiting_job_age_seconds',
    help: 'Age of the oldest job waiting to run per queue (0 when none waits)',
    labelNames: ['queue'],
    async collect() {
      for (const q of liveQueues()) {
        const [oldest] = await withTimeout(q.getJobs(['wait'], 0, 0, true)).catch(() => [null]);
        this.set(
          { queue: q.name },
          oldest ? Math.max(0, (Date.now() - oldest.timestamp) / 1000) : 0,
        );
      }
    },
  });
}

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error('timeout')), SCRAPE_TIMEOUT_MS).unref(),
    ),
  ]);
}
