import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/** A row of the security activity log, as recorded. */
export interface SecurityEventInsert {
  institutionId: string;
  type: string;
  actor: string;
  details: Record<string, unknown>;
  ip: string | null;
}

/** The write of security_event (the portal reads it through PortalActivityRepository). */
@Injectable()
export class SecurityEventsRepository {
  constructor(private readonly db: DataSource) {}

  /** In the caller's transaction when `m` is given, so the event commits with the change. */
  async insert(e: SecurityEventInsert, m?: EntityManager): Promise<void> {
    await (m ?? this.db.manager).query(
      `INSERT INTO security_event (institution_id, type, actor, details, ip) VALUES ($1, $2, $3, $4, $5)`,
      [e.institutionId, e.type, e.actor, JSON.stringify(e.details), e.ip],
    );
  }
}
