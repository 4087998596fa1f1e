import { maskToken } from './masking';
import { DAY_MS } from './timestamp';

/**
 * Right to erasure (docs/privacy.md): an erased cardholder's token is replaced, everywhere it is
 * stored, by a pseudonym drawn at random for that erasure. No mapping from the token to the
 * pseudonym is kept, so the records that must stay (money, funnel counts) no longer name anyone.
 */

/** A pending erasure waits at most this long for the cardholder's pending webhook deliveries. */
export const ERASURE_MAX_WAIT_DAYS = 14;

export const ERASURE_STATUSES = ['pending', 'completed'] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];

/** What an erasure counts, one integer per kind of record whose token it replaced. */
export const ERASED_KINDS = [
  'enrollments',
  'transactions',
  'redemptions',
  'engagement_events',
  'webhook_deliveries',
  'goal_progress',
  'claims',
  'sessions',
] as const;
export type ErasedKind = (typeof ERASED_KINDS)[number];
export type ErasedCounts = Record<ErasedKind, number>;

export function noneErased(): ErasedCounts {
  return Object.fromEntries(ERASED_KINDS.map((k) => [k, 0])) as ErasedCounts;
}

/**
 * The forms of a token to look for in free text and stored bodies: the token, and its masked
 * form when that shows any of it (a token of 8 characters or fewer masks as `****`, which names no
 * one and is left alone).
 */
export function erasableForms(token: string, pseudonym: string): { from: string; to: string }[] {
  const forms = [{ from: token, to: pseudonym }];
  const masked = maskToken(token);
  if (masked !== '****') forms.push({ from: masked, to: maskToken(pseudonym) });
  return forms;
}

/**
 * A text as it sits inside a JSON string (quotes and backslashes escaped, control characters as
 * \u00XX), so that a stored JSON body is searched and rewritten in its own spelling.
 */
export function jsonInner(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** Every occurrence of `from` in `data` replaced by `to`, byte for byte (a CSV file as stored). */
export function replaceBytes(data: Buffer, from: Buffer, to: Buffer): Buffer {
  if (from.length === 0) return data;
  const parts: Buffer[] = [];
  let start = 0;
  for (let at = data.indexOf(from, start); at !== -1; at = data.indexOf(from, start)) {
    parts.push(data.subarray(start, at), to);
    start = at + from.length;
  }
  if (start === 0) return data;
  parts.push(data.subarray(start));
  return Buffer.concat(parts);
}

/** Why a pending erasure waits. */
export const ERASURE_WAITS = ['legal_hold', 'pending_deliveries'] as const;
export type ErasureWait = (typeof ERASURE_WAITS)[number];

/**
 * Why a pending erasure must wait, or null when it may run now:
 * - `legal_hold`: the institution is under legal hold (docs/retention.md): nothing of it is
 *   erased until the hold is lifted, however long;
 * - `pending_deliveries`: a webhook delivery for the cardholder is still pending (the bank must
 *   get the token of a reward it pays), for at most ERASURE_MAX_WAIT_DAYS after the request.
 */
export function erasureWait(
  s: { legalHold: boolean; pendingDeliveries: number; requestedAt: Date },
  now: Date = new Date(),
): ErasureWait | null {
  if (s.legalHold) return 'legal_hold';
  const waited = now.getTime() - s.requestedAt.getTime();
  if (s.pendingDeliveries > 0 && waited < ERASURE_MAX_WAIT_DAYS * DAY_MS)
    return 'pending_deliveries';
  return null;
}
