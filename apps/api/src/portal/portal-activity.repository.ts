import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { KeysetAfter, keysetSql, returnedRows } from '@app/db';
import { AuditActorType, SECURITY_ACTIVITY_TYPES } from '@app/domain';

/** An audit log entry of the security activity. */
export interface SecurityRow {
  id: string;
  action: string;
  actor_type: AuditActorType;
  actor_email: string | null;
  after: Record<string, unknown> | null;
  ip: string | null;
  created_at: Date;
  cursor_t: string;
}

export interface InboxRow {
  id: string;
  kind: string;
  title: string;
  body: string;
  read_at: Date | null;
  created_at: Date;
  cursor_t: string;
}

/** The security activity's read of audit_log, and inbox_message; always within one institution. */
@Injectable()
export class PortalActivityRepository {
  constructor(private readonly db: DataSource) {}

  /** The institution's audit entries of the security activity's actions (audit_log_institution_idx). */
  securityEvents(institutionId: string, after: KeysetAfter | null, limit: number) {
    const page = keysetSql({ after, limit, params: [institutionId, [...SECURITY_ACTIVITY_TYPES]] });
    return this.db.query<SecurityRow[]>(
      `SELECT id, action, actor_type, actor_email, after, ip, created_at, ${page.cursor}
         FROM audit_log
        WHERE institution_id = $1 AND action = ANY ($2::text[]) ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }

  inbox(institutionId: string, unreadOnly: boolean, after: KeysetAfter | null, limit: number) {
    const page = keysetSql({ after, limit, params: [institutionId] });
    return this.db.query<InboxRow[]>(
      `SELECT id, kind, title, body, read_at, created_at, ${page.cursor}
         FROM inbox_message
        WHERE institution_id = $1 ${unreadOnly ? 'AND read_at IS NULL' : ''} ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }

  async unreadCount(institutionId: string): Promise<number> {
    const [{ n }] = await this.db.query(
      `SELECT count(*)::int AS n FROM inbox_message WHERE institution_id = $1 AND read_at IS NULL`,
      [institutionId],
    );
    return n;
  }

  async markAllRead(institutionId: string): Promise<void> {
    await this.db.query(
      `UPDATE inbox_message SET read_at = now() WHERE institution_id = $1 AND read_at IS NULL`,
      [institutionId],
    );
  }

  /** Marks one message read (keeping the first read time); null when it is not the institution's. */
  async markRead(institutionId: string, id: string): Promise<Date | null> {
    const [row] = returnedRows<{ read_at: Date }>(
      await this.db.query(
        `UPDATE inbox_message SET read_at = COALESCE(read_at, now()) WHERE id = $1 AND institution_id = $2 RETURNING read_at`,
        [id, institutionId],
      ),
    );
    return row ? row.read_at : null;
  }
}
