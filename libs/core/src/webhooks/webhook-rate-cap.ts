import type { RedisSettings } from '@app/config';
import { createRedis, type RedisClient } from '@app/queue';

/**
 * Spacing: the key holds the time (ms, Redis clock) from which the next attempt may go. An attempt
 * that finds that time passed takes the slot and moves it one interval on; one that finds it ahead
 * is told how long to wait and takes nothing.
 */
const TAKE_SLOT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
if free > now then return free - now end
redis.call('SET', KEYS[1], now + tonumber(ARGV[1]), 'PX', tonumber(ARGV[1]) * 2)
return 0`;

/**
 * The per-institution cap on webhook attempts per second, as an even spacing (1000 / cap ms
 * between attempts, no bursts), counted in Redis so that every worker shares it. If Redis cannot
 * answer, the attempt goes ahead: the cap protects the receiver from bursts; it must not stop
 * deliveries.
 */
export class WebhookRateCap {
  private redis?: RedisClient;

  constructor(
    private readonly settings: RedisSettings,
    private readonly keyPrefix: string,
  ) {}

  /** 0 when an attempt may go now (its slot is taken), else how many ms to wait. */
  async take(institutionId: string, perSecond: number): Promise<number> {
    try {
      this.redis ??= createRedis(this.settings, 'fast');
      if (this.redis.status !== 'ready') await this.ready(this.redis, 1_000);
      const interval = Math.max(1, Math.floor(1000 / perSecond));
      const wait = await this.redis.eval(
        TAKE_SLOT,
        1,
        `${this.keyPrefix}:${institutionId}`,
        String(interval),
      );
      return Number(wait) || 0;
    } catch {
      return 0;
    }
  }

  /** The connection fails commands until it is up: wait a little for it (the first attempts). */
  private ready(redis: RedisClient, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      redis.once('ready', done);
    });
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => this.redis?.disconnect());
  }
}
