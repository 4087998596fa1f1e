import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { AppConfig } from '@app/config';
import { ErasureRepository } from '@app/core';
import { ERASURE_JOB_NAME, ERASURE_JOB_OPTIONS, ErasureJob, jobIds, QUEUES } from '@app/queue';
import { IntervalPass } from '../interval-pass';

const LONGEST_INTERVAL_MS = 15_000;
const BATCH = 100;

/**
 * Pending erasures that are due: never queued (Redis was down when the api stored them), or
 * waiting for a cardholder's pending delivery (ERASURE_RETRY_MS). A local timer, as every relay;
 * the job id is the erasure's, so one still known to BullMQ is not doubled.
 */
@Injectable()
export class ErasureRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ErasureRelay');
  private readonly pass = new IntervalPass(this.logger, 'erasure relay');

  constructor(
    private readonly erasures: ErasureRepository,
    private readonly config: AppConfig,
    @InjectQueue(QUEUES.privacy) private readonly queue: Queue<ErasureJob>,
  ) {}

  onApplicationBootstrap(): void {
    const every = Math.min(LONGEST_INTERVAL_MS, this.config.erasure.retryMs);
    this.pass.every(every, () => this.runOnce());
  }

  runOnce(): Promise<number> {
    return this.pass.run(async () => {
      const ids = await this.erasures.due(BATCH);
      for (const id of ids) {
        await this.queue.add(
          ERASURE_JOB_NAME,
          { erasureId: id },
          { ...ERASURE_JOB_OPTIONS, jobId: jobIds.erasure(id) },
        );
      }
      if (ids.length) this.logger.debug({ count: ids.length }, 'due erasures enqueued');
      return ids.length;
    }, 0);
  }

  onApplicationShutdown(): void {
    this.pass.stop();
  }
}
