import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig, ConfigModule } from '@app/config';
import { DbModule } from '@app/db';
import { bullConnection } from '@app/queue';
import { WorkerHealthService } from './health/worker-health.service';
import { PortalJobsModule } from './portal-jobs.module';
import { WebhooksWorkerModule } from './webhooks/webhooks-worker.module';

@Module({
  imports: [
    ConfigModule,
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (c: AppConfig) => ({ pinoHttp: { level: c.logLevel, base: { app: 'worker' } } }),
    }),
    DbModule,
    PortalJobsModule,
    BullModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (c: AppConfig) => ({ connection: bullConnection(c.redisUrl), prefix: c.queuePrefix }),
    }),
    WebhooksWorkerModule,
  ],
  providers: [WorkerHealthService],
})
export class WorkerModule {}
