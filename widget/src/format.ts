/** Money, dates and terms for the cardholder's locale, with Intl only (no locale data shipped). */
import type { Strings } from './strings';

export function money(locale: string, amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

export function percent(locale: string, value: number): string {
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 }).format(
    value / 100,
  );
}

export function date(locale: string, iso: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(new Date(iso));
}

/** ISO weekdays 1–7 (Monday = 1) as short localized names, joined as a list. */
export function weekdays(locale: string, days: number[]): string {
  // 2024-01-01 was a Monday.
  const fmt = new Intl.DateTimeFormat(locale, { weekday: 'short', timeZone: 'UTC' });
  const names = [...days].sort().map((d) => fmt.format(Date.UTC(2024, 0, d)));
  return list(locale, names);
}

export function list(locale: string, items: string[]): string {
  return new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }).format(items);
}

export interface Qualification {
  days_of_week?: number[];
  time_of_day?: { from: string; to: string };
  channels?: string[];
  audience?: string;
}

/** The terms summary lines of an offer (days, hours, channel, audience), where it has them. */
export function terms(locale: string, s: Strings, q: Qualification | undefined | null): string[] {
  if (!q) return [];
  const out: string[] = [];
  if (q.days_of_week?.length && q.days_of_week.length < 7)
    out.push(s.days(weekdays(locale, q.days_of_week)));
  if (q.time_of_day?.from && q.time_of_day.to)
    out.push(s.hours(q.time_of_day.from, q.time_of_day.to));
  if (q.channels?.length === 1)
    out.push(s.onlyChannels(q.channels[0] === 'online' ? s.online : s.inStore));
  if (q.audience === 'new') out.push(s.audienceNew);
  if (q.audience === 'lapsed') out.push(s.audienceLapsed);
  return out;
}
