import { parseTimestamp, parseTransactedAt } from './timestamp';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const iso = (v: string) => {
  const r = parseTimestamp(v);
  return r.ok ? r.iso : r.message;
};

describe('parseTimestamp: one strict rule for every date the APIs accept', () => {
  it('reads ISO 8601 with a zone into UTC milliseconds', () => {
    expect(iso('2026-11-21T10:00:00Z')).toBe('2026-11-21T10:00:00.000Z');
    expect(iso('2026-11-21T10:00Z')).toBe('2026-11-21T10:00:00.000Z');
    expect(iso('2026-11-21T10:00:00.123456+02:00')).toBe('2026-11-21T08:00:00.123Z');
    expect(iso('2026-11-21T10:00:00-0330')).toBe('2026-11-21T13:30:00.000Z');
    expect(iso('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
  });

  it('refuses impossible calendar dates instead of rolling them', () => {
    for (const v of [
      '2026-02-31T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-01-00T00:00:00Z',
    ])
      expect(iso(v)).toMatch(/no such calendar date/);
  });

  it('refuses impossible times and offsets', () => {
    for (const v of [
      '2026-01-01T24:00:00Z',
      '2026-01-01T10:60:00Z',
      '2026-01-01T10:00:60Z',
      '2026-01-01T10:00:00+14:01',
      '2026-01-01T10:00:00+02:75',
    ])
      expect(iso(v)).toMatch(/no such time or offset/);
  });

  it('refuses anything outside 2000-01-01 .. 2100-01-01 (year 0 and year 1 included)', () => {
    expect(iso('0000-01-01T00:00:00Z')).toMatch(/before 2000/);
    expect(iso('0001-01-01T00:00:00+14:00')).toMatch(/before 2000/);
    expect(iso('1999-12-31T23:59:59Z')).toMatch(/before 2000/);
    expect(iso('2000-01-01T00:00:00Z')).toBe('2000-01-01T00:00:00.000Z');
    expect(iso('2100-01-01T00:00:00Z')).toMatch(/before 2100/);
    expect(iso('9999-12-31T23:00:00-14:00')).toMatch(/before 2100/);
  });

  it('refuses bare dates, other formats and non-strings', () => {
    for (const v of ['2026-11-21', '21/11/2026 10:00', '2026-11-21T10:00:00', 'now', '', 20261121])
      expect(parseTimestamp(v).ok).toBe(false);
  });

  it('transacted_at may lie at most one day ahead of now', () => {
    expect(parseTransactedAt('2026-11-22T11:59:59Z', NOW).ok).toBe(true);
    expect(parseTransactedAt('2026-11-22T12:00:01Z', NOW)).toEqual({
      ok: false,
      message: 'must not lie in the future',
    });
  });
});
