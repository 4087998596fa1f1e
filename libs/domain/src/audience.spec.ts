import { audienceMatches, latest, readsHistory } from './audience';
import { activationEndsAt, activationExpired } from './enrollment-activation';
import { DAY_MS } from './timestamp';

const at = new Date('2026-06-30T12:00:00Z');
const daysBefore = (d: number, ms = 0) => new Date(at.getTime() - d * DAY_MS + ms);

describe('audience (per cardholder and merchant, lookback window [t − lookback_days, t))', () => {
  it('all (or none set) pays everyone', () => {
    expect(audienceMatches('all', null, at, { lastBefore: daysBefore(1) })).toBe(true);
    expect(audienceMatches(undefined, null, at, { lastBefore: null })).toBe(true);
  });
  it('new: no purchase inside the lookback window', () => {
    expect(audienceMatches('new', 90, at, { lastBefore: null })).toBe(true);
    expect(audienceMatches('new', 90, at, { lastBefore: daysBefore(91) })).toBe(true);
    expect(audienceMatches('new', 90, at, { lastBefore: daysBefore(30) })).toBe(false);
  });
  it('the window boundary: exactly lookback_days earlier is inside, a millisecond more is not', () => {
    expect(audienceMatches('new', 90, at, { lastBefore: daysBefore(90) })).toBe(false);
    expect(audienceMatches('new', 90, at, { lastBefore: daysBefore(90, -1) })).toBe(true);
    expect(audienceMatches('lapsed', 90, at, { lastBefore: daysBefore(90) })).toBe(false);
    expect(audienceMatches('lapsed', 90, at, { lastBefore: daysBefore(90, -1) })).toBe(true);
  });
  it('lapsed: a purchase before the window, none inside it', () => {
    expect(audienceMatches('lapsed', 90, at, { lastBefore: daysBefore(200) })).toBe(true);
    expect(audienceMatches('lapsed', 90, at, { lastBefore: daysBefore(10) })).toBe(false);
    expect(audienceMatches('lapsed', 90, at, { lastBefore: null })).toBe(false);
  });
  it('new and lapsed need lookback_days', () => {
    expect(() => audienceMatches('new', null, at, { lastBefore: null })).toThrow(RangeError);
  });
});

describe('activation window of an enrollment', () => {
  const added = new Date('2026-06-01T10:00:00Z');
  it('counts for N days after the add, then expires', () => {
    expect(activationEndsAt(added, 7)).toEqual(new Date('2026-06-08T10:00:00Z'));
    expect(activationExpired(added, 7, new Date('2026-06-08T09:59:59.999Z'))).toBe(false);
    expect(activationExpired(added, 7, new Date('2026-06-08T10:00:00Z'))).toBe(true);
  });
  it('an offer without activation_days never expires an enrollment', () => {
    expect(activationEndsAt(added, null)).toBeNull();
    expect(activationExpired(added, undefined, new Date('2099-01-01T00:00:00Z'))).toBe(false);
  });
});

describe('history lookups', () => {
  it('only new and lapsed audiences read the purchase history', () => {
    expect(readsHistory('new')).toBe(true);
    expect(readsHistory('lapsed')).toBe(true);
    expect(readsHistory('all')).toBe(false);
    expect(readsHistory(undefined)).toBe(false);
  });
  it('the latest earlier purchase is the later of the stored one and the chunk one', () => {
    expect(latest(null, undefined)).toBeNull();
    expect(latest(daysBefore(3), null)).toEqual(daysBefore(3));
    expect(latest(daysBefore(3), daysBefore(1))).toEqual(daysBefore(1));
  });
});
