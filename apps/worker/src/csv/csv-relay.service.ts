import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { CsvUploadsRepository } from '@app/core';
import { CSV_JOB_NAME, CSV_JOB_OPTIONS, CsvJob, jobIds, QUEUES } from '@app/queue';
import { IntervalPass } from '../interval-pass';

const RELAY_EVERY_MS = 15_000;
/** An upload still `queued` this long after it was stored was never handed to the queue. */
const GRACE_SECONDS = 20;

/**
 * Uploads are committed before they are queued; when Redis was unreachable at that moment the
 * upload stays `queued`. This relay (a local timer: it must work precisely when Redis was not)
 * queues them again; the job id is the upload's, so a job still known to BullMQ is not doubled.
 */
@Injectable()
export class CsvRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CsvRelay');
  private readonly pass = new IntervalPass(this.logger, 'CSV relay');

  constructor(
    private readonly uploads: CsvUploadsRepository,
    @InjectQueue(QUEUES.csv) private readonly queue: Queue<CsvJob>,
  ) {}

  onApplicationBootstrap(): void {
    this.pass.every(RELAY_EVERY_MS, () => this.runOnce());
  }

  runOnce(graceSeconds = GRACE_SECONDS): Promise<number> {
    return this.pass.run(async () => {
      const ids = await this.uploads.stranded(graceSeconds);
      for (const id of ids) {
        await this.queue.add(
          CSV_JOB_NAME,
          { uploadId: id },
          { ...CSV_JOB_OPTIONS, jobId: jobIds.csv(id) },
        );
      }
      if (ids.length) this.logger.log({ count: ids.length }, 'stranded CSV uploads re-enqueued');
      return ids.length;
    }, 0);
  }

  onApplicationShutdown(): void {
    this.pass.stop();
  }
}
