import { Injectable, OnModuleInit } from '@nestjs/common';
import { InstitutionMailer, WebhookAlertsRepository } from '@app/core';

/**
 * When attempts pause an institution's URL (every attempt failed for WEBHOOK_DISABLE_AFTER_DAYS),
 * the inbox alert is also e-mailed to its portal users where SMTP_URL is set. After the commit,
 * best effort, never in the delivery's way.
 */
@Injectable()
export class WebhookPauseMailer implements OnModuleInit {
  constructor(
    private readonly alerts: WebhookAlertsRepository,
    private readonly mailer: InstitutionMailer,
  ) {}

  onModuleInit(): void {
    this.alerts.onPaused(
      (alert) =>
        void this.mailer.send(alert.institutionId, {
          subject: alert.title,
          text: alert.body,
          portalPath: 'webhook',
          what: 'webhook paused',
        }),
    );
  }
}
