/**
 * Local time of an instant in a program's time zone (IANA name), through the platform's Intl
 * data, so daylight-saving changes follow the zone's rules rather than a fixed offset.
 */

export interface LocalTime {
  /** ISO weekday: Monday = 1 … Sunday = 7. */
  isoWeekday: number;
  /** Minutes since local midnight, 0–1439. */
  minuteOfDay: number;
}

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when Intl knows the zone (e.g. "Europe/Berlin", "UTC"); offsets like "+02:00" are refused. */
export function isValidTimeZone(timeZone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(timeZone)) return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

export function localTime(at: Date, timeZone: string): LocalTime {
  const parts = formatter(timeZone).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    isoWeekday: WEEKDAYS[get('weekday')],
    minuteOfDay: Number(get('hour')) * 60 + Number(get('minute')),
  };
}
