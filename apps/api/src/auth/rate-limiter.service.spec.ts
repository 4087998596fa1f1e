import { randomUUID } from 'crypto';
import { createRedis, type RedisClient } from '@app/queue';
import { rateLimitKey, RateLimiterService, waitMs } from './rate-limiter.service';

// The limiter is its Lua script as much as its TypeScript: it runs against the real Redis (the
// counters live there), each test in buckets of its own, with the clock passed in.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MINUTE = 60_000;
/** The start of a window, well inside the epoch and aligned to the minute. */
const T0 = Math.floor(Date.now() / MINUTE) * MINUTE;

describe('rate limiter (sliding one-minute window over Redis)', () => {
  let redis: RedisClient;
  let limiter: RateLimiterService;
  const bucket = () => `spec-${randomUUID()}`;

  beforeAll(async () => {
    redis = createRedis({ url: REDIS_URL });
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    limiter = new RateLimiterService(redis);
  });
  afterAll(async () => {
    const keys = await redis.keys('rl:{spec-*');
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('admits up to the limit within a window, then refuses with the seconds to wait', async () => {
    const b = bucket();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.hit(b, 3, T0 + 10_000));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(decisions[0]).toMatchObject({ limit: 3, resetSeconds: 50, retryAfterSeconds: 0 });
    // the window alone is full: wait for it to end (50 s); with exactly the limit in it, its
    // weight in the next window is below the limit at once
    expect(decisions[3].retryAfterSeconds).toBe(Math.ceil(waitMs(3, 3, 0, 10_000) / 1000));
    expect(decisions[3].retryAfterSeconds).toBe(51);
  });

  it('the previous window still counts by how much of it overlaps the last 60 s', async () => {
    const b = bucket();
    for (let i = 0; i < 4; i++) await limiter.hit(b, 4, T0 + 30_000);
    // at the start of the next window the previous 4 weigh fully: nothing is admitted
    expect((await limiter.hit(b, 4, T0 + MINUTE)).allowed).toBe(false);
    // half way through it they weigh 2: two more are admitted, the third is not
    const half = T0 + MINUTE + 30_000;
    const later = [await limiter.hit(b, 4, half), await limiter.hit(b, 4, half)];
    expect(later.map((d) => d.allowed)).toEqual([true, true]);
    expect(await limiter.hit(b, 4, half)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('buckets and limits are counted apart', async () => {
    const [a, b] = [bucket(), bucket()];
    expect((await limiter.hit(a, 1, T0)).allowed).toBe(true);
    expect((await limiter.hit(a, 1, T0)).allowed).toBe(false);
    expect((await limiter.hit(b, 1, T0)).allowed).toBe(true);
  });

  it('keeps a bucket in one Redis key whose hash tag is the bucket (one slot in a cluster)', async () => {
    const b = bucket();
    await limiter.hit(b, 10, T0 + 1_000);
    expect(rateLimitKey(b)).toBe(`rl:{${b}}`);
    expect(await redis.keys(`rl:{${b}}*`)).toEqual([`rl:{${b}}`]);
  });

  it.each([400, 60])(
    'a burst of twice the limit (%i) at once through two processes admits exactly the limit',
    async (limit) => {
      const other = new RateLimiterService(redis);
      const b = bucket();
      const burst = await Promise.all(
        Array.from({ length: 2 * limit }, (_, i) =>
          (i % 2 ? limiter : other).hit(b, limit, T0 + 5_000),
        ),
      );
      expect(burst.filter((d) => d.allowed)).toHaveLength(limit);
      for (const d of burst.filter((x) => !x.allowed))
        expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    },
  );

  it('two processes taking turns admit exactly the limit', async () => {
    const limit = 400;
    const b = bucket();
    const other = new RateLimiterService(redis);
    const turns = [];
    for (let i = 0; i < 500; i++)
      turns.push(await (i % 2 ? limiter : other).hit(b, limit, T0 + 5_000));
    expect(turns.filter((d) => d.allowed)).toHaveLength(limit);
  });

  it('rejects while Redis is unreachable (the guard then lets the request through)', async () => {
    const down = createRedis({ url: 'redis://127.0.0.1:1' }, 'fast', {
      lazyConnect: true,
      retryStrategy: () => null,
    });
    const offline = new RateLimiterService(down);
    await expect(offline.hit(bucket(), 10, T0)).rejects.toThrow();
    down.disconnect();
  });

  it('waitMs: how long until the weighted count drops below the limit', () => {
    // this window alone is full (10 of 10) 15 s in: 45 s to its end, then its weight must fall to 0
    expect(waitMs(10, 10, 0, 15_000)).toBe(45_000 + 0 + 1);
    // 5 now and 10 before, limit 10: the previous window must weigh under 5, i.e. half a minute in
    expect(waitMs(10, 5, 10, 20_000)).toBe(10_001);
    // already past that point: at once
    expect(waitMs(10, 5, 10, 40_000)).toBe(1);
  });
});
