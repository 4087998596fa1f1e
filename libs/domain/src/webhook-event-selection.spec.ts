import {
  checkEventSelection,
  DEFAULT_EVENT_TYPES,
  SELECTABLE_EVENT_TYPES,
} from './webhook-event-selection';

describe('webhook event selection', () => {
  it('new institutions receive the three redemption events, named one by one: a type added later is off until chosen; a test event is never selected', () => {
    expect(DEFAULT_EVENT_TYPES).toEqual([
      'redemption.completed',
      'redemption.reversed',
      'redemption.settled',
    ]);
    expect(SELECTABLE_EVENT_TYPES).not.toContain('webhook.test');
  });

  it('claim.resolved is chosen by name only (off by default)', () => {
    expect(SELECTABLE_EVENT_TYPES).toContain('claim.resolved');
    expect(DEFAULT_EVENT_TYPES).not.toContain('claim.resolved');
    expect(checkEventSelection(['redemption.completed', 'claim.resolved'], true)).toEqual({
      ok: true,
      types: ['redemption.completed', 'claim.resolved'],
    });
  });

  it('statement.closed is selectable and off by default', () => {
    expect(SELECTABLE_EVENT_TYPES).toContain('statement.closed');
    expect(DEFAULT_EVENT_TYPES).not.toContain('statement.closed');
    expect(checkEventSelection(['statement.closed', 'redemption.completed'], true)).toEqual({
      ok: true,
      types: ['redemption.completed', 'statement.closed'],
    });
  });

  it('redemption.completed cannot be turned off while a URL is set', () => {
    expect(checkEventSelection(['redemption.reversed'], true)).toMatchObject({
      ok: false,
      reason: 'completed_required',
    });
    expect(checkEventSelection(['redemption.reversed'], false)).toEqual({
      ok: true,
      types: ['redemption.reversed'],
    });
  });

  it('refuses unknown types and webhook.test; keeps catalog order without duplicates', () => {
    expect(checkEventSelection(['redemption.completed', 'webhook.test'], true)).toMatchObject({
      ok: false,
      reason: 'unknown_event_type',
    });
    expect(
      checkEventSelection(
        ['redemption.settled', 'redemption.completed', 'redemption.settled'],
        true,
      ),
    ).toEqual({ ok: true, types: ['redemption.completed', 'redemption.settled'] });
  });
});
