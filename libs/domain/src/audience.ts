import { DAY_MS } from './timestamp';

/**
 * Audience of an acquisition or win-back offer, judged per cardholder and merchant from the
 * purchases stored before the one being matched (including history batches):
 * - `all`: everyone (the default);
 * - `new`: no purchase at this merchant in the `lookback_days` before the transaction;
 * - `lapsed`: a purchase before that window, none inside it.
 * The window is [transactedAt − lookback_days, transactedAt): a purchase exactly lookback_days
 * earlier is inside it.
 */

export const AUDIENCES = ['all', 'new', 'lapsed'] as const;
export type Audience = (typeof AUDIENCES)[number];

/** What matching knows of the cardholder's earlier purchases at the merchant. */
export interface PurchaseHistory {
  /** The latest purchase strictly before the transaction, or null when none. */
  lastBefore: Date | null;
}

export function lookbackStart(transactedAt: Date, lookbackDays: number): Date {
  return new Date(transactedAt.getTime() - lookbackDays * DAY_MS);
}

export function audienceMatches(
  audience: Audience | null | undefined,
  lookbackDays: number | null | undefined,
  transactedAt: Date,
  history: PurchaseHistory,
): boolean {
  if (!audience || audience === 'all') return true;
  if (!lookbackDays) throw new RangeError(`audience "${audience}" needs lookback_days`);
  const start = lookbackStart(transactedAt, lookbackDays).getTime();
  const last = history.lastBefore?.getTime() ?? null;
  const inside = last !== null && last >= start && last < transactedAt.getTime();
  if (audience === 'new') return !inside;
  // lapsed: the latest earlier purchase is before the window.
  return last !== null && last < start;
}

/** True when the offer pays only part of the cardholders, so the purchase history must be read. */
export function readsHistory(audience: Audience | null | undefined): boolean {
  return audience === 'new' || audience === 'lapsed';
}

/** The later of two optional instants (the stored history and earlier purchases of the same chunk). */
export function latest(a: Date | null | undefined, b: Date | null | undefined): Date | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a.getTime() >= b.getTime() ? a : b;
}
