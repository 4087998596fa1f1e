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
 * A process takes at most this share of a limit from Redis at once (a lease) and spends it
 * locally: limits of 400/min and more cost one Redis round trip per limit/200 requests instead of
 * one per request. Leased tokens are counted in Redis when taken, so every process together never
 * admits more than the limit; the price is that tokens a process leased but did not spend by the
 * end of the minute are lost (at most limit/200 per process and key). Lower limits (the reporting
 * 60/min) take one token per request, as before.
 */
export const LEASE_SHARE = 200;

/**
 * Sliding-window counter (the weighted two-window approximation): the count of the current
 * one-minute window plus the previous window's count weighted by how much of it still overlaps
 * the last 60 s. One Lua call, atomic across api processes, two small keys per key and group; it
 * grants up to ARGV[4] tokens (a lease), as many as fit under the limit.
 * rate-limiter-flexible offers fixed windows and token buckets but no sliding window, hence the
 * script.
 */
const SCRIPT = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local prev = tonumber(redis.call('GET', KEYS[2]) or '0')
local limit = tonumber(ARGV[1])
local room = limit - math.floor(prev * tonumber(ARGV[2])) - cur
if room <= 0 then
  return {0, cur, prev}
end
local take = math.min(room, tonumber(ARGV[4]))
cur = redis.call('INCRBY', KEYS[1], take)
if cur == take then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2) end
return {take, cur, prev}
`;

/** Tokens of one bucket leased by this process for the window starting at windowStart. */
interface Lease {
  windowStart: number;
  left: number;
  cur: number;
  prev: number;
}

type SlidingWindowRedis = Redis & {
  slidingWindowHit(
    cur: string,
    prev: string,
    limit: number,
    weight: string,
    windowMs: number,
    want: number,
  ): Promise<[number, number, number]>;
};

@Injectable()
export class RateLimiterService {
  /** Shared by every guard of this process: one warning per Redis outage. */
  private readonly outage = new OutageLog(new Logger('RateLimiter'), 'rate limiter (Redis)');

  constructor(@Inject(REDIS) private readonly redis: Redis) {
    this.redis.defineCommand('slidingWindowHit', { numberOfKeys: 2, lua: SCRIPT });
  }

  private readonly leases = new Map<string, Lease>();

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
    const leaseSize = Math.floor(limit / LEASE_SHARE);
    const key = `${bucket}:${limit}`;
    const lease = leaseSize > 1 ? this.leases.get(key) : undefined;
    if (lease && lease.windowStart === windowStart && lease.left > 0) {
      lease.left--;
      return this.decision(true, limit, lease.cur - lease.left, lease.prev, weight, elapsed);
    }
    const [granted, cur, prev] = await (this.redis as SlidingWindowRedis).slidingWindowHit(
      `rl:{${bucket}}:${windowStart}`,
      `rl:{${bucket}}:${windowStart - WINDOW_MS}`,
      limit,
      weight.toFixed(6),
      WINDOW_MS,
      Math.max(1, leaseSize),
    );
    if (leaseSize > 1) {
      if (this.leases.size > 10_000) this.leases.clear();
      this.leases.set(key, { windowStart, left: Math.max(0, granted - 1), cur, prev });
    }
    // Unspent tokens of this process's lease are not counted as used in the headers.
    const used = granted > 0 ? cur - (granted - 1) : cur;
    return this.decision(granted > 0, limit, used, prev, weight, elapsed);
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
