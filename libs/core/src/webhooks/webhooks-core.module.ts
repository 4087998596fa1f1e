import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { InstitutionMailer } from '../mail/institution-mailer';
import { MailRecipientsRepository } from '../mail/mail-recipients.repository';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookEvents } from './webhook-events';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookReplays } from './webhook-replays';
import { WebhookReplaysRepository } from './webhook-replays.repository';
import { WebhookAlertsRepository } from './webhook-alerts.repository';
import { WebhookAttemptsRepository } from './webhook-attempts.repository';
import { WebhookLogRepository } from './webhook-log.repository';
import { WebhookScheduleRepository } from './webhook-schedule.repository';

const repositories = [
  {
    provide: WebhookScheduleRepository,
    useFactory: (db: DataSource, config: AppConfig) =>
      new WebhookScheduleRepository(db, config.webhook.timeoutMs + config.webhook.leaseGraceMs),
    inject: [DataSource, AppConfig],
  },
  {
    provide: WebhookAlertsRepository,
    useFactory: (db: DataSource, schedule: WebhookScheduleRepository, config: AppConfig) =>
      new WebhookAlertsRepository(db, schedule, config.webhook.disableAfterMs),
    inject: [DataSource, WebhookScheduleRepository, AppConfig],
  },
  {
    provide: WebhookAttemptsRepository,
    useFactory: (db: DataSource, alerts: WebhookAlertsRepository) =>
      new WebhookAttemptsRepository(db, alerts),
    inject: [DataSource, WebhookAlertsRepository],
  },
  {
    provide: WebhookLogRepository,
    useFactory: (db: DataSource) => new WebhookLogRepository(db),
    inject: [DataSource],
  },
];

/**
 * Webhook delivery for both apps (needs the global DbModule and ConfigModule): the repositories of
 * the delivery rows (schedule and leases, attempts, alerts, the log), the events matching and
 * settlement record in their transactions, the outbox, the delivery engine, replays, and the
 * mailer of institution alerts. Imported by TransactionsCoreModule, the api's WebhooksModule and
 * the worker's modules.
 */
@Module({
  providers: [
    ...repositories,
    WebhookEvents,
    WebhookOutbox,
    WebhookDeliveryService,
    WebhookReplays,
    WebhookReplaysRepository,
    MailRecipientsRepository,
    InstitutionMailer,
  ],
  exports: [
    WebhookScheduleRepository,
    WebhookAttemptsRepository,
    WebhookAlertsRepository,
    WebhookLogRepository,
    WebhookEvents,
    WebhookOutbox,
    WebhookDeliveryService,
    WebhookReplays,
    InstitutionMailer,
  ],
})
export class WebhooksCoreModule {}
