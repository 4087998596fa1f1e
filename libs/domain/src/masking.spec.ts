import { maskToken } from './masking';

describe('maskToken', () => {
  it('keeps the first 4 and last 4 characters', () => {
    expect(maskToken('chk_1234567890abcd')).toBe('chk_****abcd');
    expect(maskToken('123456789')).toBe('1234****6789');
  });
  it('hides tokens of 8 characters or fewer entirely', () => {
    expect(maskToken('12345678')).toBe('****');
    expect(maskToken('abc')).toBe('****');
    expect(maskToken('')).toBe('****');
  });
  it("masks an erased cardholder's pseudonym in a form of its own", () => {
    expect(maskToken('erased_AAAAAAAAAAAAAAAAAAWXYZ')).toBe('erased_****WXYZ');
    expect(maskToken('erased_notapseudonym')).toBe('eras****onym');
  });
});
