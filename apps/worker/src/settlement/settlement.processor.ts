import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { SettlementService } from '@app/core';
import { QUEUES, SettlementJob } from '@app/queue';

/** Settlement runs (the scheduled job, or one enqueued for an operator). Safe to run twice. */
@Processor(QUEUES.settlement)
export class SettlementProcessor extends WorkerHost {
  private readonly logger = new Logger('SettlementProcessor');

  constructor(private readonly settlement: SettlementService) {
    super();
  }

  async process(job: Job<SettlementJob>): Promise<unknown> {
    const asOf = job.data.asOf ? new Date(job.data.asOf) : new Date();
    const result = await this.settlement.run(asOf, job.data.trigger ?? 'schedule');
    this.logger.log({ jobId: job.id, ...result }, 'settlement job done');
    return result;
  }
}
