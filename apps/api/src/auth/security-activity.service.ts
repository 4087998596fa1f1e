import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SecurityEventsRepository } from './security-events.repository';

export type SecurityEventType =
  | 'api_key.created'
  | 'api_key.revoked'
  | 'webhook.secret_rotated'
  | 'webhook.previous_secret_expired'
  | 'webhook.event_types_changed'
  | 'webhook.test_sent'
  | 'webhook.replay_started'
  | 'webhook.headers_changed'
  | 'webhook.rate_cap_changed'
  | 'webhook.resumed'
  | 'webhook.client_certificate_changed'
  | 'webhook.url_changed'
  | 'widget.settings_changed'
  | 'holdout_key.revealed'
  // Written with the erasure itself (libs/core/src/privacy/erasure.repository.ts).
  | 'cardholder.erasure_requested'
  | 'cardholder.erased'
  | 'login.succeeded'
  | 'login.failed'
  | 'login.locked';

/** The institution's security activity log (docs/portal.md). */
@Injectable()
export class SecurityActivityService {
  constructor(private readonly events: SecurityEventsRepository) {}

  /** Records an event; pass the EntityManager of an open transaction to commit with the change. */
  async record(
    event: {
      institutionId: string;
      type: SecurityEventType;
      actor: string;
      details?: Record<string, unknown>;
      ip?: string | null;
    },
    manager?: EntityManager,
  ): Promise<void> {
    await this.events.insert(
      {
        institutionId: event.institutionId,
        type: event.type,
        actor: event.actor,
        details: event.details ?? {},
        ip: event.ip ?? null,
      },
      manager,
    );
  }
}
