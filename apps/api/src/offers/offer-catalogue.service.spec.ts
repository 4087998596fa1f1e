import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import {
  CONFIRM_AFTER_MS,
  MAX_AGE_MS,
  MAX_LIVE_PER_INSTITUTION,
  OfferCatalogue,
} from './offer-catalogue.service';
import { OfferFeedRepository } from './offer-feed.repository';

const INST = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';

function row(id: string, over: Record<string, unknown> = {}) {
  return {
    id,
    merchant_id: 'm-' + id,
    merchant_name: 'Shop ' + id,
    category: 'books',
    translations: { en: { title: 'T' + id } },
    min_spend: '2000',
    reward_type: 'fixed',
    cashback_amount: '500',
    cashback_percent: null,
    currency: 'USD',
    starts_at: new Date('2026-01-01T00:00:00Z'),
    expires_at: new Date('2027-01-01T00:00:00Z'),
    segments: [],
    max_redemptions_per_cardholder: 1,
    priority: 0,
    targets: null,
    ...over,
  };
}

/** An instant at which every offer of row() is live. */
const NOW = Date.parse('2026-06-01T00:00:00Z');

/** The live offers of a view for a cardholder without a segment (what the catalogue serves). */
const view = async (
  c: OfferCatalogue,
  institutionId: string,
  order: 'featured' | 'newest',
  v: bigint,
) => (await c.live(institutionId, order, v, undefined, NOW)).offers;

function fakeDb(rows: () => unknown[]) {
  const query = jest.fn(async () => rows());
  return { db: { query } as unknown as DataSource, query };
}

describe('OfferCatalogue', () => {
  beforeAll(() => Logger.overrideLogger(false));
  const made: OfferCatalogue[] = [];
  const catalogue = (db: DataSource) => {
    const c = new OfferCatalogue(new OfferFeedRepository(db));
    made.push(c);
    return c;
  };
  afterEach(() => {
    for (const c of made.splice(0)) c.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('loads once, then answers from memory while the version stands', async () => {
    const { db, query } = fakeDb(() => [row('a')]);
    const c = catalogue(db);
    await view(c, INST, 'featured', 1n);
    await view(c, INST, 'featured', 1n);
    await view(c, INST, 'newest', 1n);
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('keeps the live offers per segment until the next start or expiry, and per version', async () => {
    const t0 = Date.parse('2026-06-01T00:00:00Z');
    let rows = [
      row('a'),
      row('later', { starts_at: new Date(t0 + 1_000) }),
      row('gold', { segments: ['gold'] }),
      row('rule', { qualification: { audience: 'new', lookback_days: 30 } }),
    ];
    const { db } = fakeDb(() => rows);
    const c = catalogue(db);
    const ids = async (segment: string | undefined, now: number, version = 1n) =>
      (await c.live(INST, 'featured', version, segment, now)).offers.map((o) => o.id);
    const first = await c.live(INST, 'featured', 1n, undefined, t0);
    expect(first.offers.map((o) => o.id)).toEqual(['a', 'rule']);
    expect(first.readingHistory.map((o) => o.id)).toEqual(['rule']);
    expect(first.byId.get('a')?.id).toBe('a');
    expect(await c.live(INST, 'featured', 1n, undefined, t0 + 999)).toBe(first);
    expect(await ids('gold', t0)).toEqual(['a', 'gold', 'rule']);
    // (featured: the newest first among equal priorities)
    expect(await ids(undefined, t0 + 1_000)).toEqual(['later', 'a', 'rule']);
    // A new catalogue version: a new list, even within the old one's window.
    rows = [row('a')];
    expect(await ids(undefined, t0 + 1_000, 2n)).toEqual(['a']);
  });

  it('bounds the live lists per institution: one cycling through segments evicts only its own', async () => {
    const { db } = fakeDb(() => [row('a'), row('gold', { segments: ['gold'] })]);
    const c = catalogue(db);
    const theirs = await c.live(OTHER, 'featured', 1n, 'gold', NOW);
    const mine = await c.live(INST, 'featured', 1n, 'gold', NOW);
    for (let i = 0; i < MAX_LIVE_PER_INSTITUTION; i++) {
      await c.live(INST, 'featured', 1n, `seg-${i}`, NOW);
    }
    expect(await c.live(OTHER, 'featured', 1n, 'gold', NOW)).toBe(theirs);
    // Its own cap still holds: its first list was dropped and is computed again (equal, not kept).
    const again = await c.live(INST, 'featured', 1n, 'gold', NOW);
    expect(again).not.toBe(mine);
    expect(again.offers.map((o) => o.id)).toEqual(mine.offers.map((o) => o.id));
  });

  it('reloads before answering when a request saw a newer version', async () => {
    let rows = [row('a')];
    const { db, query } = fakeDb(() => rows);
    const c = catalogue(db);
    expect((await view(c, INST, 'featured', 1n)).map((o) => o.id)).toEqual(['a']);
    rows = [row('a'), row('b', { priority: 5 })];
    expect((await view(c, INST, 'featured', 2n)).map((o) => o.id)).toEqual(['b', 'a']);
    expect(query).toHaveBeenCalledTimes(2);
    // A request that read an older version than the one loaded does not reload.
    await view(c, INST, 'featured', 1n);
    expect(query).toHaveBeenCalledTimes(2);
  });

  it('concurrent requests share one load', async () => {
    const { db, query } = fakeDb(() => [row('a')]);
    const c = catalogue(db);
    await Promise.all(Array.from({ length: 10 }, () => view(c, INST, 'featured', 3n)));
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('a request that needs a newer version than the load in flight waits for one more load', async () => {
    let release!: () => void;
    let n = 0;
    const query = jest.fn(() => {
      n++;
      return n === 1
        ? new Promise<unknown[]>((r) => (release = () => r([row('old')])))
        : Promise.resolve([row('new')]);
    });
    const c = catalogue({ query } as unknown as DataSource);
    const first = view(c, INST, 'featured', 1n);
    const second = view(c, INST, 'featured', 2n);
    release();
    expect((await first).map((o) => o.id)).toEqual(['old']);
    expect((await second).map((o) => o.id)).toEqual(['new']);
    expect(query).toHaveBeenCalledTimes(2);
  });

  it('confirms a change-prompted load with one more load shortly after, in the background', async () => {
    jest.useFakeTimers();
    const { db, query } = fakeDb(() => [row('a')]);
    const c = catalogue(db);
    await view(c, INST, 'featured', 1n);
    expect(query).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(CONFIRM_AFTER_MS + 1);
    expect(query).toHaveBeenCalledTimes(2);
    // Nothing more until the version moves or the catalogue grows old.
    await jest.advanceTimersByTimeAsync(10 * CONFIRM_AFTER_MS);
    expect(query).toHaveBeenCalledTimes(2);
  });

  it('refreshes in the background once older than MAX_AGE_MS, answering from memory meanwhile', async () => {
    jest.useFakeTimers();
    let rows = [row('a')];
    const { db, query } = fakeDb(() => rows);
    const c = catalogue(db);
    await view(c, INST, 'featured', 1n);
    await jest.advanceTimersByTimeAsync(CONFIRM_AFTER_MS + 1);
    const loads = query.mock.calls.length;
    rows = [row('z')];
    jest.setSystemTime(Date.now() + MAX_AGE_MS + 1);
    expect((await view(c, INST, 'featured', 1n)).map((o) => o.id)).toEqual(['a']);
    await jest.advanceTimersByTimeAsync(0);
    expect(query).toHaveBeenCalledTimes(loads + 1);
    expect((await view(c, INST, 'featured', 1n)).map((o) => o.id)).toEqual(['z']);
  });

  it('the live list holds the offers for everyone and those targeted at the institution, in the program order', async () => {
    const { db } = fakeDb(() => [
      row('everyone', { priority: 1 }),
      row('mine', { targets: [INST, OTHER], priority: 2 }),
      row('theirs', { targets: [OTHER], priority: 3 }),
    ]);
    const c = catalogue(db);
    expect((await view(c, INST, 'featured', 1n)).map((o) => o.id)).toEqual(['mine', 'everyone']);
    expect((await view(c, OTHER, 'featured', 1n)).map((o) => o.id)).toEqual([
      'theirs',
      'mine',
      'everyone',
    ]);
    const [mine] = await view(c, INST, 'featured', 1n);
    expect(mine).toMatchObject({
      minSpendMajor: 20,
      cashbackMajor: 5,
      cashbackAmount: 500,
      merchantNameKey: 'shop mine',
      startsAtIso: '2026-01-01T00:00:00.000Z',
    });
  });

  it('a failed load fails the request and is retried by the next one', async () => {
    let fail = true;
    const query = jest.fn(async () => {
      if (fail) throw new Error('db down');
      return [row('a')];
    });
    const c = catalogue({ query } as unknown as DataSource);
    await expect(view(c, INST, 'featured', 1n)).rejects.toThrow('db down');
    fail = false;
    expect((await view(c, INST, 'featured', 1n)).map((o) => o.id)).toEqual(['a']);
  });
});
