import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig, ConfigModule } from '@app/config';
import {
  DataLifecycleCoreModule,
  logDestination,
  StatementsCoreModule,
  TransactionsCoreModule,
} from '@app/core';
import { DbModule, HealthRepository } from '@app/db';
import { QUEUES } from '@app/queue';
import { WorkerHealthService } from './health/worker-health.service';
import { PortalJobsModule } from './portal-jobs.module';
import { registerWorkerQueues } from './worker-queues';
import { MatchingProcessor } from './matching/matching.processor';
import { PrivacyWorkerModule } from './privacy/privacy-worker.module';
import { MatchRelayTimer } from './matching/match-relay-timer.service';
import { SettlementScheduleService } from './settlement/settlement-schedule.service';
import { AuthorizationExpiryTimer } from './lifecycle/authorization-expiry.timer';
import { SettlementProcessor } from './settlement/settlement.processor';
import { StatementCloseTimer } from './statements/statement-close.timer';
import { DataLifecycleTimer } from './data-lifecycle/data-lifecycle.timer';
import { WebhooksWorkerModule } from './webhooks/webhooks-worker.module';

@Module({
  imports: [
    ConfigModule,
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (c: AppConfig) => {
        const options = { level: c.logLevel, base: { app: 'worker' } };
        const destination = logDestination(c);
        return { pinoHttp: destination ? [options, destination] : options };
      },
    }),
    DbModule,
    PortalJobsModule,
    // Every queue with a processor here is registered, so its worker takes the queue's options.
    registerWorkerQueues(QUEUES.matching, QUEUES.webhooks, QUEUES.settlement),
    TransactionsCoreModule,
    StatementsCoreModule,
    DataLifecycleCoreModule,
    WebhooksWorkerModule,
    PrivacyWorkerModule,
  ],
  providers: [
    HealthRepository,
    WorkerHealthService,
    MatchingProcessor,
    MatchRelayTimer,
    SettlementProcessor,
    SettlementScheduleService,
    AuthorizationExpiryTimer,
    StatementCloseTimer,
    DataLifecycleTimer,
  ],
})
export class WorkerModule {}
