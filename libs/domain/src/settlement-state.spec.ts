import { canTransition, IllegalTransitionError, sourcesOf, transition } from './settlement-state';

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
