import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { KeysetAfter, keysetSql } from '@app/db';
import type { AuditActorType, ChainedAuditEntry } from '@app/domain';

/** A stored entry, as listed (the chain's fields included). */
export interface AuditRow {
  seq: string;
  id: string;
  created_at: Date;
  actor_type: AuditActorType;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  institution_id: string | null;
  before: unknown;
  after: unknown;
  request_id: string | null;
  ip: string | null;
  prev_hash: string | null;
  hash: string;
  cursor_t: string;
}

export interface AuditFilter {
  resourceType?: string;
  resourceId?: string;
  /** An operator id, or one of the id-less actor types (`break_glass`, `system`). */
  actor?: string;
  institutionId?: string;
  from?: Date;
  to?: Date;
}

/**
 * The audit log's statements. Appends are serialised by a transaction-level advisory lock: the
 * previous hash is read and the row inserted under it, and the lock is held until the caller's
 * transaction commits, so the chain's order (`seq`) is the commit order and never forks.
 */
@Injectable()
export class AuditLogRepository {
  static readonly CHAIN_LOCK = 'audit_log_chain';

  constructor(private readonly db: DataSource) {}

  /** In the caller's transaction: locks the chain's end and answers its hash (null when empty). */
  async lockEnd(m: EntityManager): Promise<string | null> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      AuditLogRepository.CHAIN_LOCK,
    ]);
    const [last] = (await m.query(`SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1`)) as {
      hash: string;
    }[];
    return last?.hash ?? null;
  }

  async insert(m: EntityManager, e: ChainedAuditEntry): Promise<void> {
    await m.query(
      `INSERT INTO audit_log (id, created_at, actor_type, actor_id, actor_email, action, resource_type,
                              resource_id, institution_id, before, after, request_id, ip, prev_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13, $14, $15)`,
      [
        e.id,
        e.at,
        e.actor.type,
        e.actor.id,
        e.actor.email,
        e.action,
        e.resource_type,
        e.resource_id,
        e.institution_id,
        e.before === null ? null : JSON.stringify(e.before),
        e.after === null ? null : JSON.stringify(e.after),
        e.request_id,
        e.ip,
        e.prev_hash,
        e.hash,
      ],
    );
  }

  /** Newest first, keyset paged over (created_at, id); every filter optional. */
  list(f: AuditFilter, after: KeysetAfter | null, limit: number): Promise<AuditRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: (n: string) => string, v: unknown) => {
      params.push(v);
      where.push(sql(`$${params.length}`));
    };
    if (f.resourceType !== undefined) add((p) => `resource_type = ${p}`, f.resourceType);
    if (f.resourceId !== undefined) add((p) => `resource_id = ${p}`, f.resourceId);
    if (f.actor !== undefined) {
      if (f.actor === 'break_glass' || f.actor === 'system')
        add((p) => `actor_type = ${p}`, f.actor);
      else add((p) => `actor_id = ${p}::uuid`, f.actor);
    }
    if (f.institutionId !== undefined) add((p) => `institution_id = ${p}::uuid`, f.institutionId);
    if (f.from !== undefined) add((p) => `created_at >= ${p}`, f.from);
    if (f.to !== undefined) add((p) => `created_at < ${p}`, f.to);
    const page = keysetSql({ after, limit, params });
    return this.db.query(
      `SELECT seq::text, id, created_at, actor_type, actor_id, actor_email, action, resource_type,
              resource_id, institution_id, before, after, request_id, ip, prev_hash, hash, ${page.cursor}
         FROM audit_log
        WHERE ${where.length ? where.join(' AND ') : 'TRUE'} ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }

  /** The chain in append order, `limit` entries after `afterSeq` (for the verifier; ordered by the column, not its text). */
  chainPage(afterSeq: string, limit: number): Promise<AuditRow[]> {
    return this.db.query(
      `SELECT seq::text, id, created_at, actor_type, actor_id, actor_email, action, resource_type,
              resource_id, institution_id, before, after, request_id, ip, prev_hash, hash, '' AS cursor_t
         FROM audit_log WHERE seq > $1::bigint ORDER BY audit_log.seq LIMIT $2`,
      [afterSeq, limit],
    );
  }
}
