/**
 * Redemption webhook retry schedule (docs/webhooks.md): the first attempt at once, then 8 retries
 * after 1, 2, 4, 8, 16, 30, 60 and 120 × base (base = WEBHOOK_RETRY_BASE_MS, 30 s by default:
 * 30 s, 1, 2, 4, 8, 15, 30 and 60 min, about two hours in all), each moved by up to ±10% jitter.
 */
export const WEBHOOK_RETRY_STEPS = [1, 2, 4, 8, 16, 30, 60, 120] as const;
/** 1 attempt + 8 retries. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_STEPS.length + 1;
export const WEBHOOK_JITTER = 0.1;

/** The un-jittered wait after the failed attempt number `failedAttempt` (1-based), or null after the last. */
export function retryStepMs(failedAttempt: number, baseMs: number): number | null {
  const step = WEBHOOK_RETRY_STEPS[failedAttempt - 1];
  return step === undefined ? null : step * baseMs;
}

/**
 * Parses a Retry-After value (delta-seconds or an HTTP-date) into milliseconds from `nowMs`.
 * Null when absent or unparseable; 0 for a date in the past.
 */
export function parseRetryAfter(
  value: string | string[] | undefined | null,
  nowMs: number,
): number | null {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Math.min(Number(v), 10 * 365 * 86_400) * 1000;
  // HTTP-date (IMF-fixdate and the obsolete forms Date.parse understands); must name a weekday or month.
  if (!/[a-z]{3}/i.test(v)) return null;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * When to try again after `failedAttempt` failed, in ms; null = no more automatic attempts.
 * A Retry-After (from a 429 or 503) is honoured as a minimum, but never beyond twice the step,
 * so one receiver cannot stretch the series past the published two hours.
 */
export function nextRetryDelayMs(
  failedAttempt: number,
  baseMs: number,
  options: { retryAfterMs?: number | null; random?: () => number } = {},
): number | null {
  const step = retryStepMs(failedAttempt, baseMs);
  if (step === null) return null;
  const random = options.random ?? Math.random;
  const jittered = Math.round(step * (1 + WEBHOOK_JITTER * (2 * random() - 1)));
  const retryAfter = options.retryAfterMs ?? null;
  if (retryAfter === null) return Math.max(0, jittered);
  return Math.max(0, Math.min(Math.max(jittered, retryAfter), 2 * step));
}

/** Whether an HTTP status ends the automatic series at once (410 Gone: the receiver says it is gone for good). */
export function isTerminalStatus(status: number): boolean {
  return status === 410;
}

/** Statuses whose Retry-After header is honoured. */
export function honoursRetryAfter(status: number): boolean {
  return status === 429 || status === 503;
}

export type AttemptDecision =
  | { outcome: 'delivered' }
  | { outcome: 'retry'; delayMs: number }
  | {
      outcome: 'failed';
      reason: 'gone' | 'attempts_exhausted' | 'manual_attempt_failed';
      alert: boolean;
    };

/**
 * What follows one attempt. `attempt` is its number within its series: the automatic series
 * (1..9) or a manual redelivery (always 1, never retried, never alerting: the person who asked
 * sees the result in the portal). An automatic series that ends in failure alerts the
 * institution once.
 */
export function decideAfterAttempt(input: {
  trigger: 'automatic' | 'manual';
  attempt: number;
  ok: boolean;
  httpStatus: number | null;
  retryAfterMs: number | null;
  baseMs: number;
  random?: () => number;
}): AttemptDecision {
  if (input.ok) return { outcome: 'delivered' };
  if (input.trigger === 'manual')
    return { outcome: 'failed', reason: 'manual_attempt_failed', alert: false };
  if (input.httpStatus !== null && isTerminalStatus(input.httpStatus))
    return { outcome: 'failed', reason: 'gone', alert: true };
  const retryAfterMs =
    input.httpStatus !== null && honoursRetryAfter(input.httpStatus) ? input.retryAfterMs : null;
  const delayMs = nextRetryDelayMs(input.attempt, input.baseMs, {
    retryAfterMs,
    random: input.random,
  });
  return delayMs === null
    ? { outcome: 'failed', reason: 'attempts_exhausted', alert: true }
    : { outcome: 'retry', delayMs };
}
