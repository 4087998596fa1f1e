import { createHash } from 'crypto';
import { maskToken } from './masking';

/**
 * The audit log's rules (docs/operators.md): who can be an actor, what a snapshot may hold, and the
 * hash chain that makes a changed, removed or inserted entry evident.
 */

export const AUDIT_ACTOR_TYPES = ['operator', 'break_glass', 'staff', 'system'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export interface AuditActor {
  type: AuditActorType;
  /** The operator's or staff user's id; null for break_glass and system. */
  id: string | null;
  email: string | null;
}

export const BREAK_GLASS_ACTOR: AuditActor = { type: 'break_glass', id: null, email: null };
export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: null, email: null };

/** What an entry says; the chain hashes exactly these fields. */
export interface AuditEntryContent {
  id: string;
  /** ISO 8601 UTC with milliseconds. */
  at: string;
  actor: AuditActor;
  /** `<resource_type>.<verb>`, e.g. offer.create, operator.disable. */
  action: string;
  resource_type: string;
  resource_id: string | null;
  /** The institution the resource belongs to, when it belongs to one. */
  institution_id: string | null;
  before: unknown;
  after: unknown;
  request_id: string | null;
  /** The caller's address, where the entry records one (the portal's sign-ins and settings). */
  ip: string | null;
}

export interface ChainedAuditEntry extends AuditEntryContent {
  prev_hash: string | null;
  hash: string;
}

/** Keys whose values are secrets: never in a snapshot, whatever the resource. */
const SECRET_KEY =
  /(^|_)(password|secret|token|key|hash|plaintext|totp|recovery|certificate|private)(_|$)/i;
/** Keys whose values are cardholder or card tokens: kept, masked. */
const CARDHOLDER_KEY = /^(cardholder_token|card_token|instrument_token)$/;
/** Keys that look like secrets by name but are not (ids and display hints of keys). */
const NOT_SECRET = /(^|_)(id|ids|hint|prefix|name|scopes|expires_at|count)$/;

/**
 * A snapshot fit for the audit log: secret values dropped (their key kept as `"[redacted]"`, so a
 * reader sees that it changed), cardholder tokens masked, the rest as given.
 */
export function auditSnapshot(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(auditSnapshot);
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined) continue;
    if (CARDHOLDER_KEY.test(k)) out[k] = typeof v === 'string' ? maskToken(v) : null;
    else if (SECRET_KEY.test(k) && !NOT_SECRET.test(k)) out[k] = '[redacted]';
    else out[k] = auditSnapshot(v);
  }
  return out;
}

/** JSON with object keys sorted at every depth: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 (hex) of the previous entry's hash and this entry's content; the first entry has none. */
export function auditEntryHash(prevHash: string | null, e: AuditEntryContent): string {
  const content: AuditEntryContent = {
    id: e.id,
    at: e.at,
    actor: { type: e.actor.type, id: e.actor.id, email: e.actor.email },
    action: e.action,
    resource_type: e.resource_type,
    resource_id: e.resource_id,
    institution_id: e.institution_id,
    before: e.before,
    after: e.after,
    request_id: e.request_id,
    ip: e.ip,
  };
  return createHash('sha256')
    .update(`${prevHash ?? ''}\n${canonicalJson(content)}`, 'utf8')
    .digest('hex');
}

export type ChainProblem =
  | {
      entry_id: string;
      problem: 'prev_hash_mismatch';
      expected: string | null;
      found: string | null;
    }
  | { entry_id: string; problem: 'hash_mismatch'; expected: string; found: string };

/**
 * Walks the chain in append order, one entry at a time (so a long log is checked page by page):
 * each entry must name the previous entry's hash and carry the hash of its own content.
 */
export class AuditChainVerifier {
  private last: string | null = null;
  private n = 0;

  /** The first problem of this entry, or null when it is sound. */
  push(e: ChainedAuditEntry): ChainProblem | null {
    if (e.prev_hash !== this.last) {
      return {
        entry_id: e.id,
        problem: 'prev_hash_mismatch',
        expected: this.last,
        found: e.prev_hash,
      };
    }
    const expected = auditEntryHash(e.prev_hash, e);
    if (expected !== e.hash)
      return { entry_id: e.id, problem: 'hash_mismatch', expected, found: e.hash };
    this.last = e.hash;
    this.n += 1;
    return null;
  }

  get checked(): number {
    return this.n;
  }
}
