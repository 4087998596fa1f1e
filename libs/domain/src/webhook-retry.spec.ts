import {
  decideAfterAttempt,
  nextRetryDelayMs,
  parseRetryAfter,
  retryStepMs,
  WEBHOOK_MAX_ATTEMPTS,
} from './webhook-retry';

describe('webhook retry schedule', () => {
  it('is 9 attempts: at once, then 30 s, 1, 2, 4, 8, 15, 30, 60 min at the default base (about two hours)', () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(9);
    const steps = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryStepMs(n, 30_000));
    expect(steps).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 1_800_000, 3_600_000,
    ]);
    const total = steps.reduce((a, b) => a! + b!, 0)!;
    expect(total / 60_000).toBeCloseTo(120.5, 1);
    expect(retryStepMs(9, 30_000)).toBeNull();
    expect(nextRetryDelayMs(9, 30_000)).toBeNull();
  });

  it('jitters each step by at most ±10%', () => {
    expect(nextRetryDelayMs(1, 1000, { random: () => 0 })).toBe(900);
    expect(nextRetryDelayMs(1, 1000, { random: () => 0.5 })).toBe(1000);
    expect(nextRetryDelayMs(1, 1000, { random: () => 0.999999 })).toBe(1100);
    for (let i = 0; i < 200; i++) {
      const d = nextRetryDelayMs(3, 1000)!;
      expect(d).toBeGreaterThanOrEqual(3600);
      expect(d).toBeLessThanOrEqual(4400);
    }
  });

  it('waits at least Retry-After, capped at twice the step', () => {
    const random = () => 0.5;
    expect(nextRetryDelayMs(1, 30_000, { retryAfterMs: 45_000, random })).toBe(45_000);
    expect(nextRetryDelayMs(1, 30_000, { retryAfterMs: 10_000, random })).toBe(30_000);
    expect(nextRetryDelayMs(1, 30_000, { retryAfterMs: 3_600_000, random })).toBe(60_000);
  });

  it('parses Retry-After as seconds or an HTTP-date', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['5'], now)).toBe(5_000);
    for (const bad of [undefined, null, '', 'soon', '-5', '1.5'])
      expect(parseRetryAfter(bad as string, now)).toBeNull();
  });
});

describe('decideAfterAttempt', () => {
  const base = {
    trigger: 'automatic' as const,
    ok: false,
    httpStatus: 500,
    retryAfterMs: null,
    baseMs: 1000,
    random: () => 0.5,
  };
  it('a 2xx is delivered', () => {
    expect(decideAfterAttempt({ ...base, attempt: 3, ok: true, httpStatus: 200 })).toEqual({
      outcome: 'delivered',
    });
  });
  it('retries attempts 1..8 on the schedule, fails with one alert after the 9th', () => {
    expect([1, 2, 8].map((attempt) => decideAfterAttempt({ ...base, attempt }))).toEqual([
      { outcome: 'retry', delayMs: 1000 },
      { outcome: 'retry', delayMs: 2000 },
      { outcome: 'retry', delayMs: 120_000 },
    ]);
    expect(decideAfterAttempt({ ...base, attempt: 9 })).toEqual({
      outcome: 'failed',
      reason: 'attempts_exhausted',
      alert: true,
    });
  });
  it('410 stops at once; a network error retries', () => {
    expect(decideAfterAttempt({ ...base, attempt: 1, httpStatus: 410 })).toEqual({
      outcome: 'failed',
      reason: 'gone',
      alert: true,
    });
    expect(decideAfterAttempt({ ...base, attempt: 1, httpStatus: null })).toEqual({
      outcome: 'retry',
      delayMs: 1000,
    });
  });
  it('honours Retry-After on 429 and 503 only', () => {
    expect(
      decideAfterAttempt({ ...base, attempt: 1, httpStatus: 429, retryAfterMs: 1500 }),
    ).toEqual({ outcome: 'retry', delayMs: 1500 });
    expect(
      decideAfterAttempt({ ...base, attempt: 1, httpStatus: 503, retryAfterMs: 5000 }),
    ).toEqual({ outcome: 'retry', delayMs: 2000 });
    expect(
      decideAfterAttempt({ ...base, attempt: 1, httpStatus: 500, retryAfterMs: 1500 }),
    ).toEqual({ outcome: 'retry', delayMs: 1000 });
  });
  it('a manual attempt is never retried and never alerts', () => {
    expect(decideAfterAttempt({ ...base, trigger: 'manual', attempt: 1 })).toEqual({
      outcome: 'failed',
      reason: 'manual_attempt_failed',
      alert: false,
    });
    expect(decideAfterAttempt({ ...base, trigger: 'manual', attempt: 1, ok: true })).toEqual({
      outcome: 'delivered',
    });
  });
});
