import { isPseudonym, maskPseudonym, newPseudonym, PSEUDONYM_PREFIX } from './pseudonym';

describe('pseudonyms of erased cardholders', () => {
  it('are erased_ and 22 random base64url characters, new each time', () => {
    const p = newPseudonym();
    expect(p).toMatch(/^erased_[A-Za-z0-9_-]{22}$/);
    expect(p.startsWith(PSEUDONYM_PREFIX)).toBe(true);
    expect(newPseudonym()).not.toBe(p);
  });

  it('take their characters from the random bytes alone', () => {
    expect(newPseudonym((n) => Buffer.alloc(n, 0xff))).toBe('erased_' + '_'.repeat(21) + 'w');
  });

  it('are recognised by their exact shape only', () => {
    expect(isPseudonym(newPseudonym())).toBe(true);
    expect(isPseudonym('erased_short')).toBe(false);
    expect(isPseudonym('chk_8f14e45fceea167a5a36dedd')).toBe(false);
    expect(isPseudonym(newPseudonym() + 'x')).toBe(false);
  });

  it('mask as erased_**** and their last 4 characters', () => {
    expect(maskPseudonym('erased_AAAAAAAAAAAAAAAAAAWXYZ')).toBe('erased_****WXYZ');
  });
});
