import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { AppConfig } from '@app/config';
import { MatchRelayService } from '@app/core';
import { QUEUES, SETTLEMENT_JOB_NAME, SETTLEMENT_SCHEDULER_ID, SettlementJob } from '@app/queue';

/** Re-declares the BullMQ job schedulers this often, so they come back after Redis lost its data. */
const RESCHEDULE_MS = 10 * 60_000;

/**
 * The worker's periodic work:
 * - the settlement run, a BullMQ job scheduler (cron SETTLEMENT_SCHEDULE, UTC) so that exactly one
 *   worker runs each occurrence; upserted at boot, after every reconnection to Redis and every few
 *   minutes (a Redis that lost its data gets it back);
 * - the matching relay, a local timer (it must work precisely when Redis has been unreliable, so
 *   it does not depend on Redis to be triggered; a PostgreSQL advisory lock keeps it to one
 *   worker at a time).
 */
@Injectable()
export class WorkerSchedulesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WorkerSchedules');
  private relayTimer?: NodeJS.Timeout;
  private scheduleTimer?: NodeJS.Timeout;
  private relayRunning = false;

  constructor(
    @InjectQueue(QUEUES.settlement) private readonly settlementQueue: Queue<SettlementJob>,
    private readonly relay: MatchRelayService,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.schedule();
    // After a reconnection Redis may have come back empty (restarted without persistence): declare again.
    (await this.settlementQueue.getBackend().client).on('ready', () => void this.schedule());
    this.scheduleTimer = setInterval(() => void this.schedule(), RESCHEDULE_MS);
    this.relayTimer = setInterval(
      () => void this.relayPass(),
      this.config.matching.relayIntervalMs,
    );
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

  private async relayPass(): Promise<void> {
    if (this.relayRunning) return;
    this.relayRunning = true;
    try {
      await this.relay.runOnce();
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, 'matching relay pass failed');
    } finally {
      this.relayRunning = false;
    }
  }

  onApplicationShutdown(): void {
    clearInterval(this.relayTimer);
    clearInterval(this.scheduleTimer);
  }
}
