import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import {
  ProducerQueue,
  queueBacklog,
  throttled,
  jobIds,
  QUEUES,
  WEBHOOK_JOB_NAME,
  WEBHOOK_JOB_OPTIONS,
  WebhookJob,
} from '@app/queue';
import { StepRef, WebhookScheduleRepository } from './webhook-schedule.repository';

const RELAY_BATCH = 1_000;
/** On the interval pass, a row younger than this is left to whoever is enqueueing it right now. */
const FRESH_GRACE_MS = 250;

/**
 * Hands delivery steps to the webhooks queue. PostgreSQL is the source of truth: a step is added to
 * BullMQ only after its row is committed, under a job id derived from the delivery, its series and
 * the attempt (`wh-<id>-r<series>-a<n>`), so adding it twice is harmless. Never fails its caller:
 * when Redis is unreachable the rows stay unqueued and the worker's relay enqueues them later.
 *
 * New delivery rows need no call from the code that writes them: their commit notifies the worker's
 * relay (a trigger on webhook_delivery), which enqueues them at once.
 */
@Injectable()
export class WebhookOutbox implements OnApplicationShutdown {
  private readonly logger = new Logger('WebhookOutbox');
  private readonly producer: ProducerQueue<WebhookJob>;
  /** At most one warning a second. */
  private readonly warn = throttled((m) => this.logger.warn(m));
  constructor(
    private readonly schedule: WebhookScheduleRepository,
    private readonly config: AppConfig,
  ) {
    this.producer = new ProducerQueue<WebhookJob>(
      QUEUES.webhooks,
      config.redis,
      config.queuePrefix,
    );
  }

  warmUp(): void {
    void this.producer.bull;
  }

  /**
   * Adds the jobs for these steps (delayed until their next_attempt_at), then marks the rows as
   * queued. Resolves false when Redis refused them (they stay for the relay).
   */
  async enqueueSteps(
    steps: readonly StepRef[],
    requestId?: string,
    mark: 'unqueued' | 'touch' | 'none' = 'unqueued',
  ): Promise<boolean> {
    if (!steps.length) return true;
    if (!(await this.add(steps, requestId))) return false;
    try {
      if (mark === 'unqueued') await this.schedule.markEnqueued([...steps]);
      else if (mark === 'touch') await this.schedule.touchEnqueued([...steps]);
    } catch (e) {
      // The jobs are queued; the marks only spare the relay some work.
      this.warn(`could not mark ${steps.length} deliveries as queued (${(e as Error).message})`);
    }
    return true;
  }

  /**
   * For steps whose job may already wait in the queue (resuming a paused URL: a retry scheduled
   * before the pause keeps its job id), moves such a delayed job to the step's time; adding it
   * again would be ignored as a duplicate and it would run at its old retry time, out of order.
   */
  async reschedule(steps: readonly StepRef[]): Promise<void> {
    const now = Date.now();
    for (const s of steps) {
      const delay = s.nextAttemptAt ? Math.max(0, s.nextAttemptAt.getTime() - now) : 0;
      await this.producer.within(async (q) => {
        const job = await q.getJob(jobIds.webhook(s.id, s.series, s.attempt));
        if (job && (await job.isDelayed())) await job.changeDelay(delay);
      });
    }
  }

  /** Adds the jobs only. */
  async add(steps: readonly StepRef[], requestId?: string): Promise<boolean> {
    // Waits a little for a connection still being made (the first call).
    if (!(await this.producer.ready(1_000))) {
      this.warn(
        `redis not ready (${this.producer.status}); ${steps.length} webhook deliveries left for the relay`,
      );
      return false;
    }
    const now = Date.now();
    const jobs = steps.map((s) => ({
      name: WEBHOOK_JOB_NAME,
      data: {
        deliveryId: s.id,
        series: s.series,
        attempt: s.attempt,
        trigger: s.series === 0 ? ('automatic' as const) : ('manual' as const),
        requestId,
      },
      opts: {
        ...WEBHOOK_JOB_OPTIONS,
        jobId: jobIds.webhook(s.id, s.series, s.attempt),
        delay: s.nextAttemptAt ? Math.max(0, s.nextAttemptAt.getTime() - now) : 0,
      },
    }));
    try {
      await this.producer.within((q) => q.addBulk(jobs));
      return true;
    } catch (e) {
      this.warn(
        `could not enqueue ${steps.length} webhook deliveries (${(e as Error).message}); left for the relay`,
      );
      return false;
    }
  }

  /**
   * One relay pass (the worker runs it every WEBHOOK_RELAY_INTERVAL_MS): deliveries committed but
   * never queued, then steps whose job was lost. Returns how many were handed to the queue.
   */
  async relayOnce(
    options: { freshGraceMs?: number } = {},
  ): Promise<{ unqueued: number; overdue: number }> {
    let unqueued = 0;
    for (;;) {
      const steps = await this.schedule.unqueued(
        RELAY_BATCH,
        options.freshGraceMs ?? FRESH_GRACE_MS,
      );
      if (!steps.length || !(await this.enqueueSteps(steps, undefined, 'unqueued'))) break;
      unqueued += steps.length;
      if (steps.length < RELAY_BATCH) break;
    }
    const late = await this.schedule.overdue(RELAY_BATCH, this.config.webhook.stuckAfterMs);
    // Due now: drop the (past) next_attempt_at so they run at once.
    const overdue =
      late.length &&
      (await this.enqueueSteps(
        late.map((s) => ({ ...s, nextAttemptAt: null })),
        undefined,
        'touch',
      ))
        ? late.length
        : 0;
    if (overdue)
      this.logger.warn(`re-enqueued ${overdue} overdue webhook deliveries (jobs lost or late)`);
    return { unqueued, overdue };
  }

  /** Jobs waiting to run (waiting, prioritized, delayed); null when Redis cannot tell. */
  backlog(): Promise<number | null> {
    return queueBacklog(this.producer.bull);
  }

  /** After onModuleDestroy, when the worker's processors have finished their jobs. */
  async onApplicationShutdown(): Promise<void> {
    await this.producer.close();
  }
}
