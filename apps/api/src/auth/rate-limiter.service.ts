import { Inject, Injectable, Logger } from '@nestjs/common';
import { REDIS, type RedisClient } from '@app/queue';
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
 * the last 60 s. One Lua call per request on one hash per key and group (`rl:{<bucket>}`: the
 * braces are its Redis Cluster hash tag), so the check and the count are one atomic step across
 * every api process: a burst is admitted exactly up to the limit. (Tokens leased to processes in
 * batches, as before, were lost when concurrent requests of one process each took a lease and
 * overwrote the others': 300–311 of 400 admitted in a burst.)
 * rate-limiter-flexible offers fixed windows and token buckets but no sliding window, hence the
 * script. ARGV: window start, weight of the previous window, limit, window length.
 */
const SCRIPT = `
local ws = tonumber(ARGV[1])
local h = redis.call('HMGET', KEYS[1], 'w', 'c', 'p')
local w = tonumber(h[1])
local cur = tonumber(h[2]) or 0
local prev = tonumber(h[3]) or 0
if w == nil then
  cur, prev = 0, 0
elseif w < ws then
  if w == ws - tonumber(ARGV[4]) then prev = cur else prev = 0 end
  cur = 0
else
  -- this process's clock is behind another's: count in the window already started
  ws = w
end
local allowed = 0
if math.floor(prev * tonumber(ARGV[2])) + cur < tonumber(ARGV[3]) then
  allowed = 1
  cur = cur + 1
end
redis.call('HSET', KEYS[1], 'w', ws, 'c', cur, 'p', prev)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) * 2)
return {allowed, cur, prev}
`;

type SlidingWindowRedis = RedisClient & {
  slidingWindowHit(
    key: string,
    windowStart: number,
    weight: string,
    limit: number,
    windowMs: number,
  ): Promise<[number, number, number]>;
};

/** The Redis key of a bucket's counters: one key, its own hash slot in a cluster. */
export function rateLimitKey(bucket: string): string {
  return `rl:{${bucket}}`;
}

@Injectable()
export class RateLimiterService {
  /** Shared by every guard of this process: one warning per Redis outage. */
  private readonly outage = new OutageLog(new Logger('RateLimiter'), 'rate limiter (Redis)');

  constructor(@Inject(REDIS) private readonly redis: RedisClient) {
    this.redis.defineCommand('slidingWindowHit', { numberOfKeys: 1, lua: SCRIPT });
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
    const [allowed, cur, prev] = await (this.redis as SlidingWindowRedis).slidingWindowHit(
      rateLimitKey(bucket),
      windowStart,
      weight.toFixed(6),
      limit,
      WINDOW_MS,
    );
    return this.decision(allowed === 1, limit, cur, prev, weight, elapsed);
  }

  private decision(
    allowed: boolean,
    limit: number,
    cur: number,
    prev: number,
    weight: number,
    elapsed: number,
  ): RateDecision {
    const used = Math.floor(prev * weight) + cur;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - used),
      resetSeconds: Math.max(1, Math.ceil((WINDOW_MS - elapsed) / 1000)),
      retryAfterSeconds: allowed
        ? 0
        : Math.max(1, Math.ceil(waitMs(limit, cur, prev, elapsed) / 1000)),
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
