import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { PrivacyCoreModule } from '@app/core';
import { QUEUES } from '@app/queue';
import { ErasureProcessor } from './erasure.processor';
import { ErasureRelayService } from './erasure-relay.service';

/** Cardholder erasures (docs/privacy.md): the job and the relay of due ones. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.privacy }), PrivacyCoreModule],
  providers: [ErasureProcessor, ErasureRelayService],
})
export class PrivacyWorkerModule {}
