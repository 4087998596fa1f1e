import { inTimeWindow, minutesOf, qualificationReasons } from './qualification';
import { isValidTimeZone, localTime } from './local-time';

const facts = (over: Partial<Parameters<typeof qualificationReasons>[1]> = {}) => ({
  amountMinor: 5_000,
  transactedAt: new Date('2026-06-03T12:00:00Z'), // a Wednesday
  channel: null,
  network: null,
  ...over,
});

describe('time of day: [from, to) in local time', () => {
  const at = (hhmm: string) => minutesOf(hhmm);
  it('includes from, excludes to', () => {
    const w = { from: '11:00', to: '14:00' };
    expect(inTimeWindow(w, at('10:59'))).toBe(false);
    expect(inTimeWindow(w, at('11:00'))).toBe(true);
    expect(inTimeWindow(w, at('13:59'))).toBe(true);
    expect(inTimeWindow(w, at('14:00'))).toBe(false);
  });
  it('a window whose end is not after its start crosses midnight', () => {
    const w = { from: '22:00', to: '02:00' };
    expect(inTimeWindow(w, at('21:59'))).toBe(false);
    expect(inTimeWindow(w, at('22:00'))).toBe(true);
    expect(inTimeWindow(w, at('23:59'))).toBe(true);
    expect(inTimeWindow(w, at('00:00'))).toBe(true);
    expect(inTimeWindow(w, at('01:59'))).toBe(true);
    expect(inTimeWindow(w, at('02:00'))).toBe(false);
    expect(inTimeWindow(w, at('12:00'))).toBe(false);
  });
  it('from = to is the whole day', () => {
    expect(inTimeWindow({ from: '05:00', to: '05:00' }, at('04:59'))).toBe(true);
  });
});

describe('local time in the program time zone (Intl, with DST)', () => {
  it('New York is UTC−5 in winter and UTC−4 in summer', () => {
    expect(localTime(new Date('2026-01-15T15:30:00Z'), 'America/New_York').minuteOfDay).toBe(
      minutesOf('10:30'),
    );
    expect(localTime(new Date('2026-07-15T15:30:00Z'), 'America/New_York').minuteOfDay).toBe(
      minutesOf('11:30'),
    );
  });
  it('the spring-forward night skips 02:00–02:59 (07:00 UTC is 03:00 local)', () => {
    expect(localTime(new Date('2026-03-08T06:59:00Z'), 'America/New_York')).toEqual({
      isoWeekday: 7,
      minuteOfDay: minutesOf('01:59'),
    });
    expect(localTime(new Date('2026-03-08T07:00:00Z'), 'America/New_York')).toEqual({
      isoWeekday: 7,
      minuteOfDay: minutesOf('03:00'),
    });
  });
  it('the weekday is the local one: Sunday 23:30 UTC is Monday in Tokyo', () => {
    expect(localTime(new Date('2026-06-07T23:30:00Z'), 'UTC').isoWeekday).toBe(7);
    expect(localTime(new Date('2026-06-07T23:30:00Z'), 'Asia/Tokyo').isoWeekday).toBe(1);
  });
  it('time zones are IANA names', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('+02:00')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});

describe('qualification rules', () => {
  it('an offer without a qualification object qualifies as before', () => {
    expect(qualificationReasons(undefined, facts(), 'UTC')).toEqual([]);
    expect(qualificationReasons({}, facts(), 'UTC')).toEqual([]);
  });
  it('max_spend: a purchase above it does not qualify; equal to it does', () => {
    expect(qualificationReasons({ maxSpend: 5_000 }, facts(), 'UTC')).toEqual([]);
    expect(qualificationReasons({ maxSpend: 4_999 }, facts(), 'UTC')).toEqual(['above_max_spend']);
  });
  it('days_of_week: ISO weekdays in the program time zone', () => {
    expect(qualificationReasons({ daysOfWeek: [3] }, facts(), 'UTC')).toEqual([]);
    expect(qualificationReasons({ daysOfWeek: [6, 7] }, facts(), 'UTC')).toEqual(['outside_days']);
    // Wednesday 23:30 UTC is already Thursday in Berlin.
    const late = facts({ transactedAt: new Date('2026-06-03T23:30:00Z') });
    expect(qualificationReasons({ daysOfWeek: [4] }, late, 'Europe/Berlin')).toEqual([]);
    expect(qualificationReasons({ daysOfWeek: [4] }, late, 'UTC')).toEqual(['outside_days']);
  });
  it('time_of_day: local hours, the zone decides', () => {
    const lunch = { timeOfDay: { from: '11:00', to: '14:00' } };
    expect(qualificationReasons(lunch, facts(), 'UTC')).toEqual([]);
    expect(qualificationReasons(lunch, facts(), 'America/New_York')).toEqual(['outside_hours']);
  });
  it('channels: a restricted offer never matches a transaction without a channel', () => {
    const online = { channels: ['online' as const] };
    expect(qualificationReasons(online, facts({ channel: 'online' }), 'UTC')).toEqual([]);
    expect(qualificationReasons(online, facts({ channel: 'in_store' }), 'UTC')).toEqual([
      'channel_mismatch',
    ]);
    expect(qualificationReasons(online, facts(), 'UTC')).toEqual(['channel_mismatch']);
  });
  it('networks: compared case-insensitively; no network never matches', () => {
    const visa = { networks: ['visa', 'Elo'] };
    expect(qualificationReasons(visa, facts({ network: 'VISA' }), 'UTC')).toEqual([]);
    expect(qualificationReasons(visa, facts({ network: 'elo' }), 'UTC')).toEqual([]);
    expect(qualificationReasons(visa, facts({ network: 'amex' }), 'UTC')).toEqual([
      'network_mismatch',
    ]);
    expect(qualificationReasons(visa, facts(), 'UTC')).toEqual(['network_mismatch']);
  });
  it('lists every failing rule, in a stable order', () => {
    expect(
      qualificationReasons(
        {
          maxSpend: 1,
          daysOfWeek: [1],
          timeOfDay: { from: '00:00', to: '01:00' },
          channels: ['online'],
          networks: ['visa'],
        },
        facts(),
        'UTC',
      ),
    ).toEqual([
      'above_max_spend',
      'outside_days',
      'outside_hours',
      'channel_mismatch',
      'network_mismatch',
    ]);
  });
});
