import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { SecurityEvent } from '@app/db';

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
  | 'login.succeeded'
  | 'login.failed'
  | 'login.locked';

/** The institution's security activity log (docs/portal.md). */
@Injectable()
export class SecurityActivityService {
  constructor(
    @InjectRepository(SecurityEvent) private readonly events: Repository<SecurityEvent>,
  ) {}

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
    await (manager ?? this.events.manager).query(
      `INSERT INTO security_event (institution_id, type, actor, details, ip) VALUES ($1, $2, $3, $4, $5)`,
      [
        event.institutionId,
        event.type,
        event.actor,
        JSON.stringify(event.details ?? {}),
        event.ip ?? null,
      ],
    );
  }
}
