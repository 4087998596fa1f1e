import type { Audience } from './audience';
import { localTime } from './local-time';
import { toMajor } from './money';

/**
 * Qualification rules of an offer (its optional `qualification` object): each narrows which
 * purchases qualify. An offer without one qualifies exactly as before. Every rule that fails is
 * reported with its own reason, in the order of QUALIFICATION_REASONS.
 */

export const CHANNELS = ['in_store', 'online'] as const;
export type Channel = (typeof CHANNELS)[number];

export const QUALIFICATION_REASONS = [
  'above_max_spend',
  'outside_days',
  'outside_hours',
  'channel_mismatch',
  'network_mismatch',
] as const;
export type QualificationReason = (typeof QUALIFICATION_REASONS)[number];

/** "HH:MM" local, 00:00–23:59. */
export interface TimeOfDay {
  from: string;
  to: string;
}

export interface Qualification {
  /** Minor units of the offer currency; purchases above it do not qualify. */
  maxSpend?: number;
  /** ISO weekdays 1–7 (Monday = 1) in the program's time zone. */
  daysOfWeek?: number[];
  timeOfDay?: TimeOfDay;
  channels?: Channel[];
  /** Card networks, compared case-insensitively. */
  networks?: string[];
  /** The enrollment counts for this many days after the add (enrollment-activation.ts). */
  activationDays?: number;
  /** Who the offer pays, judged on the cardholder's earlier purchases at the merchant (audience.ts). */
  audience?: Audience;
  /** 1–365, set with audience new or lapsed. */
  lookbackDays?: number;
}

export interface QualificationFacts {
  /** Purchase in the offer's minor units. */
  amountMinor: number;
  transactedAt: Date;
  channel: string | null;
  network: string | null;
}

/** The offer's qualification column (JSON): the admin API's names, max_spend in minor units. */
export interface StoredQualification {
  max_spend_minor?: number;
  days_of_week?: number[];
  time_of_day?: TimeOfDay;
  channels?: Channel[];
  networks?: string[];
  activation_days?: number;
  audience?: Audience;
  lookback_days?: number;
}

export function fromStoredQualification(
  q: StoredQualification | null | undefined,
): Qualification | undefined {
  if (!q) return undefined;
  return {
    maxSpend: q.max_spend_minor,
    daysOfWeek: q.days_of_week,
    timeOfDay: q.time_of_day,
    channels: q.channels,
    networks: q.networks,
    activationDays: q.activation_days,
    audience: q.audience,
    lookbackDays: q.lookback_days,
  };
}

/** The rules as the API shows them (admin API, and the terms on feed items): max_spend in major units. */
export interface QualificationTerms {
  max_spend?: number;
  days_of_week?: number[];
  time_of_day?: TimeOfDay;
  networks?: string[];
  channels?: Channel[];
  activation_days?: number;
  audience?: Audience;
  lookback_days?: number;
}

export function qualificationTerms(
  q: StoredQualification | null | undefined,
  currency: string,
): QualificationTerms | null {
  if (!q) return null;
  const t: QualificationTerms = {};
  if (q.max_spend_minor !== undefined) t.max_spend = toMajor(q.max_spend_minor, currency);
  if (q.days_of_week) t.days_of_week = q.days_of_week;
  if (q.time_of_day) t.time_of_day = q.time_of_day;
  if (q.networks) t.networks = q.networks;
  if (q.channels) t.channels = q.channels;
  if (q.activation_days !== undefined) t.activation_days = q.activation_days;
  if (q.audience) {
    t.audience = q.audience;
    t.lookback_days = q.lookback_days;
  }
  return t;
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

export function isTimeOfDay(v: string): boolean {
  return HH_MM.test(v);
}

/** Minutes since midnight of "HH:MM". */
export function minutesOf(hhmm: string): number {
  const m = HH_MM.exec(hhmm);
  if (!m) throw new RangeError(`not HH:MM: ${hhmm}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/**
 * Inside the window [from, to): `from` included, `to` excluded. A window whose `to` is not after
 * its `from` crosses midnight (22:00–02:00 is 22:00 up to 01:59); from = to is the whole day.
 */
export function inTimeWindow(window: TimeOfDay, minuteOfDay: number): boolean {
  const from = minutesOf(window.from);
  const to = minutesOf(window.to);
  if (from === to) return true;
  return from < to
    ? minuteOfDay >= from && minuteOfDay < to
    : minuteOfDay >= from || minuteOfDay < to;
}

export function qualificationReasons(
  q: Qualification | null | undefined,
  facts: QualificationFacts,
  timeZone: string,
): QualificationReason[] {
  if (!q) return [];
  const reasons: QualificationReason[] = [];
  if (q.maxSpend !== undefined && facts.amountMinor > q.maxSpend) reasons.push('above_max_spend');
  if (q.daysOfWeek || q.timeOfDay) {
    const local = localTime(facts.transactedAt, timeZone);
    if (q.daysOfWeek && !q.daysOfWeek.includes(local.isoWeekday)) reasons.push('outside_days');
    if (q.timeOfDay && !inTimeWindow(q.timeOfDay, local.minuteOfDay)) reasons.push('outside_hours');
  }
  if (q.channels && (!facts.channel || !q.channels.includes(facts.channel as Channel)))
    reasons.push('channel_mismatch');
  if (q.networks) {
    const network = facts.network?.trim().toLowerCase();
    if (!network || !q.networks.some((n) => n.toLowerCase() === network))
      reasons.push('network_mismatch');
  }
  return reasons;
}
