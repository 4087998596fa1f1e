import { SECURITY_ACTIVITY_TYPES, securityActivityActor } from './security-activity';

describe('security activity', () => {
  it('names the staff user, operator for any operator, the erasure requester, system otherwise', () => {
    const staff = { actor_type: 'staff' as const, actor_email: 'ana@bank.test', after: {} };
    expect(securityActivityActor(staff)).toBe('ana@bank.test');
    expect(
      securityActivityActor({ actor_type: 'operator', actor_email: 'op@ops.test', after: null }),
    ).toBe('operator');
    expect(
      securityActivityActor({ actor_type: 'break_glass', actor_email: null, after: null }),
    ).toBe('operator');
    expect(securityActivityActor({ actor_type: 'system', actor_email: null, after: {} })).toBe(
      'system',
    );
    expect(
      securityActivityActor({
        actor_type: 'system',
        actor_email: null,
        after: { requested_by: 'API key plo_live_…abcd (desk)' },
      }),
    ).toBe('API key plo_live_…abcd (desk)');
    // A staff entry without an e-mail (none is recorded) is not shown as someone's.
    expect(securityActivityActor({ ...staff, actor_email: null })).toBe('system');
  });

  it('lists each action once', () => {
    expect(new Set(SECURITY_ACTIVITY_TYPES).size).toBe(SECURITY_ACTIVITY_TYPES.length);
  });
});
