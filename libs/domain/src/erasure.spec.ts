import {
  ERASED_KINDS,
  erasableForms,
  erasureWait,
  jsonInner,
  noneErased,
  replaceBytes,
} from './erasure';

describe('erasure', () => {
  const pseudonym = 'erased_AAAAAAAAAAAAAAAAAAWXYZ';

  it('counts eight kinds of records, all zero before anything is erased', () => {
    expect(ERASED_KINDS).toEqual([
      'enrollments',
      'transactions',
      'redemptions',
      'engagement_events',
      'webhook_deliveries',
      'goal_progress',
      'claims',
      'sessions',
    ]);
    expect(Object.values(noneErased())).toEqual(ERASED_KINDS.map(() => 0));
  });

  it('looks for the token and its masked form, each replaced by the pseudonym’s', () => {
    expect(erasableForms('chk_1234567890abcd', pseudonym)).toEqual([
      { from: 'chk_1234567890abcd', to: pseudonym },
      { from: 'chk_****abcd', to: 'erased_****WXYZ' },
    ]);
  });

  it('leaves `****` alone: the masked form of a short token names no one', () => {
    expect(erasableForms('abc12', pseudonym)).toEqual([{ from: 'abc12', to: pseudonym }]);
  });

  it('spells a text as it sits inside a JSON string', () => {
    expect(jsonInner('plain')).toBe('plain');
    expect(jsonInner('a"b\\c')).toBe('a\\"b\\\\c');
  });

  it('replaces every occurrence in stored bytes, and returns the same buffer when there is none', () => {
    const csv = Buffer.from('cardholder_token,amount\ntok1,5\ntok2,6\ntok1,7\n');
    expect(replaceBytes(csv, Buffer.from('tok1'), Buffer.from('erased_x')).toString()).toBe(
      'cardholder_token,amount\nerased_x,5\ntok2,6\nerased_x,7\n',
    );
    expect(replaceBytes(csv, Buffer.from('nope'), Buffer.from('x'))).toBe(csv);
  });

  it('runs once no delivery for the cardholder is pending, or after 14 days of waiting', () => {
    const requestedAt = new Date('2026-11-01T00:00:00Z');
    const at = (iso: string, pendingDeliveries: number) =>
      erasureWait({ legalHold: false, pendingDeliveries, requestedAt }, new Date(iso));
    expect(at('2026-11-01T00:01:00Z', 0)).toBeNull();
    expect(at('2026-11-14T23:59:59Z', 2)).toBe('pending_deliveries');
    expect(at('2026-11-15T00:00:00Z', 2)).toBeNull();
  });

  it('waits while the institution is under legal hold, however long', () => {
    const requestedAt = new Date('2026-01-01T00:00:00Z');
    expect(
      erasureWait({ legalHold: true, pendingDeliveries: 0, requestedAt }, new Date('2026-11-01')),
    ).toBe('legal_hold');
  });
});
