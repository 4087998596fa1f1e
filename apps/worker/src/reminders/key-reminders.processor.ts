import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { KEY_REMINDER_JOB_NAME, KEY_REMINDER_SCHEDULER_ID, QUEUES } from '@app/queue';
import { KeyRemindersService } from './key-reminders.service';

/** How often the sweep runs: hourly is plenty for day-grained reminders. */
export const KEY_REMINDER_EVERY_MS = 60 * 60_000;
/** Re-declares the job scheduler this often, so it comes back after Redis lost its data. */
const RESCHEDULE_MS = 10 * 60_000;

/**
 * The key-expiry reminder sweep as a BullMQ job scheduler: exactly one worker runs each
 * occurrence, whatever the number of workers; the sweep itself is safe to run twice.
 */
@Processor(QUEUES.reminders)
export class KeyRemindersProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger('KeyRemindersProcessor');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly reminders: KeyRemindersService,
    @InjectQueue(QUEUES.reminders) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.schedule();
    this.timer = setInterval(() => void this.schedule(), RESCHEDULE_MS);
  }

  private async schedule(): Promise<void> {
    try {
      await this.queue.upsertJobScheduler(
        KEY_REMINDER_SCHEDULER_ID,
        { every: KEY_REMINDER_EVERY_MS },
        {
          name: KEY_REMINDER_JOB_NAME,
          data: {},
          opts: {
            attempts: 3,
            backoff: { type: 'exponential', delay: 30_000 },
            removeOnComplete: 50,
            removeOnFail: 50,
          },
        },
      );
    } catch (e) {
      this.logger.warn(
        { err: (e as Error).message },
        'could not declare the key-reminder schedule; will retry',
      );
    }
  }

  async process(job: Job): Promise<unknown> {
    const sent = await this.reminders.sweep();
    return { jobId: job.id, sent: sent.length };
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
