import { Module } from '@nestjs/common';
import { PrivacyCoreModule } from '@app/core';
import { QUEUES } from '@app/queue';
import { ErasureProcessor } from './erasure.processor';
import { ErasureRelayService } from './erasure-relay.service';
import { registerWorkerQueues } from '../worker-queues';

/** Cardholder erasures (docs/privacy.md): the job and the relay of due ones. */
@Module({
  imports: [registerWorkerQueues(QUEUES.privacy), PrivacyCoreModule],
  providers: [ErasureProcessor, ErasureRelayService],
})
export class PrivacyWorkerModule {}
