import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS } from '@app/queue';
import { OutageLog } from '../common/outage-log';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  /** Seconds to wait before a retry can succeed (0 when allowed). */
  retryAfterSeconds: number;
}

const WINDOW_MS = 60_000;

/**
 * Sliding-window counter (the weighted two-window approximation): the count of the current
 * one-minute window plus the previous window's count weighted by how much of it still overlaps
 * the last 60 s. One Lua call, atomic across api processes, two small keys per key and group.
 * rate-limiter-flexible offers fixed windows and token buckets but no sliding window, hence the
 * script.
 */
const SCRIPT = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local prev = tonumber(redis.call('GET', KEYS[2]) or '0')
local limit = tonumber(ARGV[1])
if math.floor(prev * tonumber(ARGV[2])) + cur >= limit then
  return {0, cur, prev}
end
cur = redis.call('INCR', KEYS[1])
if cur == 1 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2) end
return {1, cur, prev}
`;

type SlidingWindowRedis = Redis & {
  slidingWindowHit(
    cur: string,
    prev: string,
    limit: number,
    weight: string,
    windowMs: number,
  ): Promise<[number, number, number]>;
};

@Injectable()
export class RateLimiterService {
  /** Shared by every guard of this process: one warning per Redis outage. */
  private readonly outage = new OutageLog(new Logger('RateLimiter'), 'rate limiter (Redis)');

  constructor(@Inject(REDIS) private readonly redis: Redis) {
    this.redis.defineCommand('slidingWindowHit', { numberOfKeys: 2, lua: SCRIPT });
  }

  /**
   * Counts one request; rejects while Redis is unreachable (callers then let the request through
   * unlimited). The outage is logged here, once, not by each caller per request.
   */
  async hit(bucket: string, limit: number, now = Date.now()): Promise<RateDecision> {
    try {
      const decision = await this.decide(bucket, limit, now);
      this.outage.ok();
      return decision;
    } catch (e) {
      this.outage.failed(e);
      throw e;
    }
  }

  private async decide(bucket: string, limit: number, now: number): Promise<RateDecision> {
    const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    const elapsed = now - windowStart;
    const weight = (WINDOW_MS - elapsed) / WINDOW_MS;
    const [ok, cur, prev] = await (this.redis as SlidingWindowRedis).slidingWindowHit(
      `rl:{${bucket}}:${windowStart}`,
      `rl:{${bucket}}:${windowStart - WINDOW_MS}`,
      limit,
      weight.toFixed(6),
      WINDOW_MS,
    );
    const used = Math.floor(prev * weight) + cur;
    return {
      allowed: ok === 1,
      limit,
      remaining: Math.max(0, limit - used),
      resetSeconds: Math.max(1, Math.ceil((WINDOW_MS - elapsed) / 1000)),
      retryAfterSeconds:
        ok === 1 ? 0 : Math.max(1, Math.ceil(waitMs(limit, cur, prev, elapsed) / 1000)),
    };
  }
}

/** How long until prev·weight + cur drops below the limit, given no further hits. */
export function waitMs(limit: number, cur: number, prev: number, elapsed: number): number {
  if (cur < limit) {
    // Inside this window the previous window's weight must shrink enough.
    const until = WINDOW_MS * (1 - (limit - cur) / prev);
    return Math.max(0, until - elapsed) + 1;
  }
  // This window alone is full: wait for it to end, then for its weight to shrink.
  return WINDOW_MS - elapsed + WINDOW_MS * (1 - limit / cur) + 1;
}
