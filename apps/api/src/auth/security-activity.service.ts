import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditContext, AuditTrail } from '@app/core';
import { AuditActor, SYSTEM_ACTOR } from '@app/domain';
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

/** The resource each kind of event is about, as the audit log names it. */
const RESOURCE_OF: Record<string, string> = {
  api_key: 'api_key',
  webhook: 'webhook',
  widget: 'widget_settings',
  holdout_key: 'holdout_key',
  login: 'portal_user',
};

/**
 * The institution's security activity (docs/portal.md): the row the portal reads
 * (security_event) and, in the same transaction, the audit log's entry (docs/operators.md) with
 * the institution's id, the event's type as the action and its details as `after`.
 */
@Injectable()
export class SecurityActivityService {
  constructor(
    private readonly db: DataSource,
    private readonly events: SecurityEventsRepository,
    private readonly audit: AuditTrail,
  ) {}

  /**
   * Records an event; pass the EntityManager of an open transaction to commit with the change.
   * `actor` is a portal user's e-mail, `system`, or (for an operator's action, with `by`) any
   * label: `by` then names the operator and the request.
   */
  async record(
    event: {
      institutionId: string;
      type: SecurityEventType;
      actor: string;
      details?: Record<string, unknown>;
      ip?: string | null;
      /** The staff user's id, when known. */
      userId?: string;
    },
    manager?: EntityManager,
    by?: AuditContext,
  ): Promise<void> {
    const details = event.details ?? {};
    const ctx: AuditContext = by ?? {
      actor: actorOf(event.actor, event.userId),
      requestId: null,
    };
    const change = {
      action: event.type,
      resourceType: RESOURCE_OF[event.type.split('.')[0]] ?? 'institution',
      resourceId: resourceIdOf(details, event.userId),
      institutionId: event.institutionId,
      after: details,
      ip: event.ip ?? null,
    };
    const write = async (m: EntityManager) => {
      await this.events.insert(
        {
          institutionId: event.institutionId,
          type: event.type,
          actor: event.actor,
          details,
          ip: event.ip ?? null,
        },
        m,
      );
      await this.audit.record(m, ctx, change);
    };
    await (manager ? write(manager) : this.db.transaction(write));
  }
}

function actorOf(label: string, userId?: string): AuditActor {
  if (label === 'system' || label === 'seed-demo') return SYSTEM_ACTOR;
  if (label === 'operator') return { type: 'operator', id: null, email: null };
  return { type: 'staff', id: userId ?? null, email: label };
}

function resourceIdOf(details: Record<string, unknown>, userId?: string): string | null {
  for (const k of ['key_id', 'delivery_id', 'replay_id'])
    if (typeof details[k] === 'string') return details[k] as string;
  return userId ?? null;
}
