import { BullModule } from '@nestjs/bullmq';
import { AppConfig } from '@app/config';
import { bullOptions, QueueName } from '@app/queue';

/**
 * Registers queues the worker consumes or schedules on, each with its own BullMQ options
 * (libs/queue's bullOptions: its connection, and on a Redis Cluster its hash-tagged prefix); a
 * queue's processor takes the options of its registered queue. On a cluster the queue's client
 * is the worker's to close: forceDisconnectOnShutdown does it after the queue closes.
 */
export function registerWorkerQueues(...names: QueueName[]) {
  return BullModule.registerQueueAsync(
    ...names.map((name) => ({
      name,
      inject: [AppConfig],
      useFactory: (c: AppConfig) => ({
        ...bullOptions(c.redis, c.queuePrefix, name),
        forceDisconnectOnShutdown: true,
      }),
    })),
  );
}
