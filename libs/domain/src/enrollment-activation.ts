import { DAY_MS } from './timestamp';

/**
 * Activation window of an enrollment (an offer's `qualification.activation_days`): the enrollment
 * counts for N days after the add, then it expires. An expired enrollment no longer qualifies, is
 * shown as not added in the feed, does not count toward max_active_offers, and a re-add starts a
 * new window.
 */

/** The end of the window: addedAt + N days (excluded); null when the offer sets no window. */
export function activationEndsAt(
  addedAt: Date,
  activationDays: number | null | undefined,
): Date | null {
  if (activationDays === null || activationDays === undefined) return null;
  return new Date(addedAt.getTime() + activationDays * DAY_MS);
}

/** True when `at` is at or after the end of the enrollment's window. */
export function activationExpired(
  addedAt: Date,
  activationDays: number | null | undefined,
  at: Date,
): boolean {
  const end = activationEndsAt(addedAt, activationDays);
  return end !== null && at.getTime() >= end.getTime();
}
