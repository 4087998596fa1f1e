import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { CardholderErasureService } from '@app/core';
import { ErasureJob, QUEUES } from '@app/queue';

/**
 * Runs a cardholder erasure (docs/privacy.md). The job names the erasure only; the service finds
 * it pending and locked, or does nothing, so a job run twice erases once. An erasure that waits
 * for a pending delivery is tried again by the relay when it is due.
 */
@Processor(QUEUES.privacy, { concurrency: 1 })
export class ErasureProcessor extends WorkerHost {
  constructor(private readonly erasures: CardholderErasureService) {
    super();
  }

  async process(job: Job<ErasureJob>): Promise<{ outcome: string }> {
    return { outcome: await this.erasures.run(job.data.erasureId) };
  }
}
