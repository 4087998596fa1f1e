import {
  reversalOfEntry,
  canTransition,
  IllegalTransitionError,
  isSettlementStatus,
  reversal,
  sourcesOf,
  transition,
} from './settlement-state';

describe('settlement state machine', () => {
  it.each([
    ['pending', 'settled', true],
    ['pending', 'reversed', true],
    ['settled', 'reversed', true],
    ['settled', 'pending', false],
    ['reversed', 'pending', false],
    ['reversed', 'settled', false],
    ['pending', 'pending', false],
    ['settled', 'settled', false],
  ] as const)('%s → %s allowed: %s', (from, to, allowed) => {
    expect(canTransition(from, to)).toBe(allowed);
    if (allowed) expect(transition(from, to)).toBe(to);
    else expect(() => transition(from, to)).toThrow(IllegalTransitionError);
  });

  it('lists the sources of each target, for guarded SQL updates', () => {
    expect(sourcesOf('settled')).toEqual(['pending']);
    expect(sourcesOf('reversed')).toEqual(['pending', 'settled']);
    expect(sourcesOf('pending')).toEqual([]);
  });
});

describe('settlement reversal (refunds)', () => {
  it('no clawback from pending; the institution payout is clawed back from settled', () => {
    expect(reversal('pending', 562)).toEqual({ status: 'reversed', clawbackAmount: null });
    expect(reversal('settled', 562)).toEqual({ status: 'reversed', clawbackAmount: 562 });
  });

  it('refuses to reverse a reversed entry', () => {
    expect(() => reversal('reversed', 562)).toThrow(IllegalTransitionError);
  });

  it('isSettlementStatus', () => {
    expect(isSettlementStatus('settled')).toBe(true);
    expect(isSettlementStatus('paid')).toBe(false);
  });
});

describe('reversing a locked settlement entry', () => {
  it('pending: reversed with no clawback; settled: the institution payout is clawed back', () => {
    expect(reversalOfEntry('pending', 450)).toEqual({ clawbackAmount: null });
    expect(reversalOfEntry('settled', 450)).toEqual({ clawbackAmount: 450 });
  });
  it('an entry already reversed, or in a status not known, is left as it is', () => {
    expect(reversalOfEntry('reversed', 450)).toBeNull();
    expect(reversalOfEntry('paid', 450)).toBeNull();
  });
});
