import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditContext, AuditTrail } from '@app/core';
import {
  SecurityEventType,
  securityActivityAuditActor,
  securityActivityResource,
} from '@app/domain';
import { SecurityEventsRepository } from './security-events.repository';

export type { SecurityEventType };

/**
 * The institution's security activity (docs/portal.md): an audit log entry (docs/operators.md)
 * with the institution's id, the event's type as the action and its details as `after`, which
 * the portal reads. The same row is still written to security_event in the same transaction, for
 * the previous release's api while both run during a deploy (it read that table); nothing of
 * this release reads it.
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
      actor: securityActivityAuditActor(event.actor, event.userId),
      requestId: null,
    };
    const change = {
      action: event.type,
      ...securityActivityResource(event.type, details, event.userId),
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
