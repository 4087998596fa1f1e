import { Injectable } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { DataSource, EntityManager } from 'typeorm';
import {
  AuditActor,
  AuditChainVerifier,
  AuditEntryContent,
  auditEntryHash,
  auditSnapshot,
  ChainProblem,
} from '@app/domain';
import { AuditLogRepository, AuditRow } from './audit-log.repository';

/** Who acts, and the request (X-Request-Id) they act in. */
export interface AuditContext {
  actor: AuditActor;
  requestId: string | null;
}

/** One change, in the audit log's words. */
export interface AuditChange {
  /** `<resource_type>.<verb>`, e.g. `offer.create`. */
  action: string;
  resourceType: string;
  resourceId: string | null;
  institutionId?: string | null;
  before?: unknown;
  after?: unknown;
  /** The caller's address, for the security activity's sign-ins and settings changes. */
  ip?: string | null;
}

/** An entry as stored, in the chain's terms. */
export function chainedEntry(r: AuditRow) {
  return {
    id: r.id,
    at: r.created_at.toISOString(),
    actor: { type: r.actor_type, id: r.actor_id, email: r.actor_email },
    action: r.action,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    institution_id: r.institution_id,
    before: r.before,
    after: r.after,
    request_id: r.request_id,
    ip: r.ip,
    prev_hash: r.prev_hash,
    hash: r.hash,
  };
}

/**
 * The audit log (docs/operators.md): `record` appends an entry in the caller's transaction, so the
 * entry commits with the change or not at all; snapshots lose their secrets and keep only masked
 * cardholder tokens on the way in.
 */
@Injectable()
export class AuditTrail {
  constructor(
    private readonly db: DataSource,
    private readonly repo: AuditLogRepository,
  ) {}

  async record(m: EntityManager, ctx: AuditContext, change: AuditChange): Promise<void> {
    const content: AuditEntryContent = {
      id: randomUUID(),
      at: new Date().toISOString(),
      actor: { type: ctx.actor.type, id: ctx.actor.id, email: ctx.actor.email },
      action: change.action,
      resource_type: change.resourceType,
      resource_id: change.resourceId,
      institution_id: change.institutionId ?? null,
      // Through JSON once, so that what is hashed is exactly what jsonb gives back.
      before: roundTrip(auditSnapshot(change.before)),
      after: roundTrip(auditSnapshot(change.after)),
      request_id: ctx.requestId,
      ip: change.ip ?? null,
    };
    const prev = await this.repo.lockEnd(m);
    await this.repo.insert(m, { ...content, prev_hash: prev, hash: auditEntryHash(prev, content) });
  }

  /** For an action that has no transaction of its own to join: the entry alone. */
  recordAlone(ctx: AuditContext, change: AuditChange): Promise<void> {
    return this.db.transaction((m) => this.record(m, ctx, change));
  }

  /** Walks the whole chain in append order; the first problem found, or none. */
  async verify(pageSize = 1000): Promise<{ checked: number; problem: ChainProblem | null }> {
    const verifier = new AuditChainVerifier();
    let after = '0';
    for (;;) {
      const rows = await this.repo.chainPage(after, pageSize);
      for (const r of rows) {
        const problem = verifier.push(chainedEntry(r));
        if (problem) return { checked: verifier.checked, problem };
      }
      if (rows.length < pageSize) return { checked: verifier.checked, problem: null };
      after = rows[rows.length - 1].seq;
    }
  }
}

function roundTrip(v: unknown): unknown {
  return v === null || v === undefined ? null : JSON.parse(JSON.stringify(v));
}
