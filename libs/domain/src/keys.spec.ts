import { compositeKey } from './keys';

describe('compositeKey', () => {
  it('joins the parts with NUL', () => {
    expect(compositeKey('inst', 'ref')).toBe('inst\u0000ref');
    expect(compositeKey('e1', 2)).toBe('e1\u00002');
  });

  it('keeps tuples apart that plain concatenation would merge', () => {
    expect(compositeKey('ab', 'c')).not.toBe(compositeKey('a', 'bc'));
    expect(compositeKey('a', 'b', 'c')).not.toBe(compositeKey('a', 'b'));
  });
});
