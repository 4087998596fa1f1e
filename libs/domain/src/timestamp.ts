/**
 * The one timestamp rule of every API (bodies and query strings alike): ISO 8601 with a time and
 * a time zone, read strictly (2026-02-31 is refused, never rolled to March 3; hour 24, minute 60,
 * second 60 and offsets beyond ±14:00 are refused) and inside an accepted range, so nothing that
 * PostgreSQL or the reports would choke on reaches them.
 */

/** One day in milliseconds (a UTC day: no time zone or daylight saving in it). */
export const DAY_MS = 86_400_000;
/** Earliest instant any API accepts. */
export const TIMESTAMP_MIN = '2000-01-01T00:00:00Z';
/** First instant no API accepts (a far bound for offer and key expiries). */
export const TIMESTAMP_MAX = '2100-01-01T00:00:00Z';
/** How far ahead of now a transaction's transacted_at may lie (clock skew between systems). */
export const TRANSACTED_AT_FUTURE_TOLERANCE_MS = DAY_MS;

const MIN_MS = Date.parse(TIMESTAMP_MIN);
const MAX_MS = Date.parse(TIMESTAMP_MAX);

const FORMAT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2}))$/;

export const TIMESTAMP_FORMAT_MESSAGE =
  'must be an ISO 8601 timestamp with a time zone, such as 2026-11-21T10:00:00Z';

export type TimestampResult =
  { ok: true; ms: number; iso: string } | { ok: false; message: string };

export interface TimestampRange {
  /** Earliest accepted instant in ms (default 2000-01-01T00:00:00Z). */
  minMs?: number;
  /** Latest accepted instant in ms, inclusive (default just before 2100-01-01T00:00:00Z). */
  maxMs?: number;
  /** The message when maxMs is passed (default names the range). */
  tooLateMessage?: string;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Parses one timestamp; `iso` is the instant in UTC with millisecond precision. */
export function parseTimestamp(value: unknown, range: TimestampRange = {}): TimestampResult {
  const m = typeof value === 'string' ? FORMAT.exec(value) : null;
  if (!m) return { ok: false, message: TIMESTAMP_FORMAT_MESSAGE };
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const offH = m[10] === undefined ? 0 : Number(m[10]);
  const offM = m[11] === undefined ? 0 : Number(m[11]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, message: `${TIMESTAMP_FORMAT_MESSAGE} (no such calendar date)` };
  }
  if (hour > 23 || minute > 59 || second > 59 || offM > 59 || offH * 60 + offM > 14 * 60) {
    return { ok: false, message: `${TIMESTAMP_FORMAT_MESSAGE} (no such time or offset)` };
  }
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const sign = m[9] === '-' ? -1 : 1;
  const ms =
    Date.UTC(year, month - 1, day, hour, minute, second, fraction) -
    sign * (offH * 60 + offM) * 60_000;
  const minMs = range.minMs ?? MIN_MS;
  const maxMs = range.maxMs ?? MAX_MS - 1;
  if (ms < minMs) return { ok: false, message: `must not be before ${TIMESTAMP_MIN}` };
  if (ms > maxMs) {
    return {
      ok: false,
      message: range.tooLateMessage ?? `must be before ${TIMESTAMP_MAX}`,
    };
  }
  return { ok: true, ms, iso: new Date(ms).toISOString() };
}

/** transacted_at: the general range, and at most one day ahead of `now`. */
export function parseTransactedAt(value: unknown, now: number): TimestampResult {
  return parseTimestamp(value, {
    maxMs: Math.min(MAX_MS - 1, now + TRANSACTED_AT_FUTURE_TOLERANCE_MS),
    tooLateMessage: 'must not lie in the future',
  });
}
