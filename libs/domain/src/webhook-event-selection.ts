import type { WebhookEventType } from './webhook-payloads';

/**
 * Which event types an institution receives: the redemption events, `claim.resolved` and
 * `statement.closed` (a test event is sent when asked for). New institutions receive
 * DEFAULT_EVENT_TYPES; `redemption.completed` (the event that tells them to credit a cardholder)
 * stays on while a webhook URL is set.
 */
export const SELECTABLE_EVENT_TYPES = [
  'redemption.completed',
  'redemption.reversed',
  'redemption.settled',
  'claim.resolved',
  'statement.closed',
] as const satisfies readonly WebhookEventType[];
export type SelectableEventType = (typeof SELECTABLE_EVENT_TYPES)[number];

/**
 * What a new institution receives: the three redemption events, named one by one so that an event
 * type added to the catalog later is off for every institution until an admin turns it on. The
 * column default of institution.webhook_event_types is this list.
 */
export const DEFAULT_EVENT_TYPES: readonly SelectableEventType[] = [
  'redemption.completed',
  'redemption.reversed',
  'redemption.settled',
];

export type EventSelection =
  | { ok: true; types: SelectableEventType[] }
  | { ok: false; reason: 'unknown_event_type' | 'completed_required'; message: string };

/** Checks a requested selection; returns it deduplicated, in catalog order. */
export function checkEventSelection(requested: readonly string[], urlSet: boolean): EventSelection {
  const unknown = requested.filter(
    (t) => !(SELECTABLE_EVENT_TYPES as readonly string[]).includes(t),
  );
  if (unknown.length)
    return {
      ok: false,
      reason: 'unknown_event_type',
      message: `Unknown or not selectable event type: ${unknown.join(', ')}.`,
    };
  if (urlSet && !requested.includes('redemption.completed'))
    return {
      ok: false,
      reason: 'completed_required',
      message: 'redemption.completed cannot be turned off while a webhook URL is set.',
    };
  return { ok: true, types: SELECTABLE_EVENT_TYPES.filter((t) => requested.includes(t)) };
}
