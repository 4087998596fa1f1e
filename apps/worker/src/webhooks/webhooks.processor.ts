import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { Counter } from 'prom-client';
import { AppConfig } from '@app/config';
import { WebhookDeliveryService } from '@app/core';
import { QUEUES, WebhookJob } from '@app/queue';

const outcomes = new Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook attempts by outcome (delivered, retry, failed, skipped, noop, paused)',
  labelNames: ['outcome'],
});

/**
 * Webhook attempts: one job per attempt (`wh-<delivery>-r<series>-a<n>`), run by
 * WebhookDeliveryService. A job whose step is already done (or whose delivery is not in this
 * database) completes without sending; one whose attempt is held by another worker waits for the
 * lease to end. Logs carry ids, statuses and error classes only: never payloads, tokens, secrets
 * or signatures.
 */
@Processor(QUEUES.webhooks)
export class WebhooksProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, OnModuleDestroy
{
  private readonly logger = new Logger('WebhooksProcessor');

  constructor(
    private readonly delivery: WebhookDeliveryService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.webhook.concurrency;
  }

  /**
   * Graceful shutdown: stop taking jobs and let the running attempts finish (record their outcome
   * and queue their next attempt) while the database and queue connections are still open; those
   * close later, on application shutdown.
   */
  async onModuleDestroy(): Promise<void> {
    await this.worker.close();
  }

  async process(job: Job<WebhookJob>, token?: string): Promise<unknown> {
    const r = await this.delivery.attempt(job.data);
    switch (r.kind) {
      case 'busy':
        await job.moveToDelayed(r.until.getTime() + 250, token);
        throw new DelayedError();
      case 'done':
        outcomes.inc({ outcome: 'noop' });
        return { done: true };
      case 'paused':
        // The URL is paused: the step waits in PostgreSQL; resuming queues it again.
        outcomes.inc({ outcome: 'paused' });
        this.logger.log({ deliveryId: job.data.deliveryId }, 'webhook paused');
        return { paused: true };
      case 'skipped':
        outcomes.inc({ outcome: 'skipped' });
        this.logger.log({ deliveryId: job.data.deliveryId, reason: r.reason }, 'webhook skipped');
        return r;
      case 'attempted': {
        const outcome = r.status === 'pending' ? 'retry' : (r.status ?? 'lost');
        outcomes.inc({ outcome });
        // Every attempt is in the attempt log (database). The process log has one info line per
        // delivery's outcome (delivered, failed; skipped and paused above); the attempts on the way
        // at debug.
        const line = {
          deliveryId: job.data.deliveryId,
          series: job.data.series,
          attempt: r.attemptNumber,
          httpStatus: r.httpStatus,
          errorClass: r.errorClass,
          status: r.status,
          requestId: job.data.requestId,
        };
        if (outcome === 'delivered') this.logger.log(line, 'webhook delivered');
        else if (outcome === 'failed') this.logger.log(line, 'webhook failed');
        else this.logger.debug(line, 'webhook attempt failed');
        return { status: r.status, attempt: r.attemptNumber };
      }
    }
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<WebhookJob> | undefined, err: Error): void {
    this.logger.error({ jobId: job?.id, err: err.message }, 'webhook job failed');
  }
}
