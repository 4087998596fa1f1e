import { randomUUID } from 'crypto';
import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  AuditEntryContent,
  auditEntryHash,
  auditSnapshot,
  securityActivityAuditActor,
  securityActivityResource,
  SYSTEM_ACTOR,
} from '@app/domain';

const PAGE = 1000;

interface EventRow {
  id: string;
  institution_id: string;
  type: string;
  actor: string;
  details: Record<string, unknown> | null;
  ip: string | null;
  /** Truncated to the millisecond: the chain hashes `at` as JavaScript writes it. */
  at: Date;
}

/**
 * The portal's security activity now reads the audit log. Every security_event row that has no
 * twin there (written before the audit log existed, or by the erasure, which wrote only
 * security_event) is appended to the chain, in its original order and with its original time, as
 * SecurityActivityService would have recorded it (same actor, resource and snapshot rule; an
 * erasure's requester in `after.requested_by`). A twin is an entry of the same institution and
 * action within 5 seconds: both were written in one transaction since the audit log began.
 * security_event stays (the previous release reads it during a deploy).
 */
export class SecurityActivityAudit1795722499837 implements MigrationInterface {
  name = 'SecurityActivityAudit1795722499837';

  async up(q: QueryRunner): Promise<void> {
    // The chain's end, held until this migration's transaction commits (AuditLogRepository's lock).
    await q.query(`SELECT pg_advisory_xact_lock(hashtextextended('audit_log_chain', 0))`);
    const [last] = (await q.query(`SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1`)) as {
      hash: string;
    }[];
    let prev: string | null = last?.hash ?? null;
    let after: { at: Date; id: string } | null = null;
    for (;;) {
      const rows: EventRow[] = await q.query(
        `SELECT e.id, e.institution_id, e.type, e.actor, e.details, e.ip,
                date_trunc('milliseconds', e.created_at) AS at
           FROM security_event e
          WHERE ($1::timestamptz IS NULL OR (date_trunc('milliseconds', e.created_at), e.id) > ($1, $2::uuid))
            AND NOT EXISTS (
              SELECT 1 FROM audit_log a
               WHERE a.institution_id = e.institution_id AND a.action = e.type
                 AND a.created_at BETWEEN e.created_at - interval '5 seconds' AND e.created_at + interval '5 seconds')
          ORDER BY date_trunc('milliseconds', e.created_at), e.id
          LIMIT $3`,
        [after?.at ?? null, after?.id ?? null, PAGE],
      );
      for (const r of rows) {
        const details = r.details ?? {};
        const erasure = r.type.startsWith('cardholder.');
        const content: AuditEntryContent = {
          id: randomUUID(),
          at: r.at.toISOString(),
          actor: erasure
            ? r.type === 'cardholder.erased'
              ? SYSTEM_ACTOR
              : { type: 'staff', id: null, email: null }
            : securityActivityAuditActor(r.actor),
          action: r.type,
          resource_type: '',
          resource_id: null,
          institution_id: r.institution_id,
          before: null,
          after: JSON.parse(
            JSON.stringify(
              auditSnapshot(erasure ? { ...details, requested_by: r.actor } : details),
            ),
          ),
          request_id: null,
          ip: r.ip,
        };
        const resource = securityActivityResource(r.type, details);
        content.resource_type = resource.resourceType;
        content.resource_id = resource.resourceId;
        const hash = auditEntryHash(prev, content);
        await q.query(
          `INSERT INTO audit_log (id, created_at, actor_type, actor_id, actor_email, action, resource_type,
                                  resource_id, institution_id, before, after, request_id, ip, prev_hash, hash)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, $10::jsonb, NULL, $11, $12, $13)`,
          [
            content.id,
            content.at,
            content.actor.type,
            content.actor.id,
            content.actor.email,
            content.action,
            content.resource_type,
            content.resource_id,
            content.institution_id,
            JSON.stringify(content.after),
            content.ip,
            prev,
            hash,
          ],
        );
        prev = hash;
      }
      if (rows.length < PAGE) return;
      after = { at: rows[rows.length - 1].at, id: rows[rows.length - 1].id };
    }
  }

  async down(): Promise<void> {
    // The audit log is append-only: the copied entries stay, and security_event was never changed.
  }
}
