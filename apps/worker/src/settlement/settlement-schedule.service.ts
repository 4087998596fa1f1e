import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { AppConfig } from '@app/config';
import { QUEUES, SETTLEMENT_JOB_NAME, SETTLEMENT_SCHEDULER_ID, SettlementJob } from '@app/queue';

/** Re-declares the BullMQ job scheduler this often, so it comes back after Redis lost its data. */
const RESCHEDULE_MS = 10 * 60_000;

/**
 * The settlement run's schedule: a BullMQ job scheduler (cron SETTLEMENT_SCHEDULE, UTC) so that
 * exactly one worker runs each occurrence; upserted at boot, after every reconnection to Redis and
 * every few minutes (a Redis that lost its data gets it back).
 */
@Injectable()
export class SettlementScheduleService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SettlementSchedule');
  private scheduleTimer?: NodeJS.Timeout;

  constructor(
    @InjectQueue(QUEUES.settlement) private readonly settlementQueue: Queue<SettlementJob>,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.schedule();
    // After a reconnection Redis may have come back empty (restarted without persistence): declare again.
    (await this.settlementQueue.getBackend().client).on('ready', () => void this.schedule());
    this.scheduleTimer = setInterval(() => void this.schedule(), RESCHEDULE_MS);
  }

  private async schedule(): Promise<void> {
    try {
      await this.settlementQueue.upsertJobScheduler(
        SETTLEMENT_SCHEDULER_ID,
        { pattern: this.config.settlementSchedule, tz: 'UTC' },
        {
          name: SETTLEMENT_JOB_NAME,
          data: { trigger: 'schedule' },
          opts: {
            attempts: 3,
            backoff: { type: 'exponential', delay: 10_000 },
            removeOnComplete: 100,
            removeOnFail: 100,
          },
        },
      );
    } catch (e) {
      this.logger.warn(
        { err: (e as Error).message },
        'could not declare the settlement schedule; will retry',
      );
    }
  }

  onApplicationShutdown(): void {
    clearInterval(this.scheduleTimer);
  }
}
