import { NUL_MESSAGE, SURROGATE_MESSAGE, textProblem } from './text';

describe('textProblem: well-formed Unicode without NUL', () => {
  it('accepts any well-formed text, astral characters included', () => {
    for (const s of ['', 'ref-1', 'café', '注文', 'emoji 😀', '\u{10ffff}'])
      expect(textProblem(s)).toBeNull();
  });
  it('refuses NUL anywhere', () => {
    expect(textProblem('a\u0000b')).toBe(NUL_MESSAGE);
    expect(textProblem('\u0000')).toBe(NUL_MESSAGE);
  });
  it('refuses a lone high or low surrogate, wherever it sits', () => {
    for (const s of ['r-\ud800', '\ud800x', '\udc00', 'a\udfffb', '\ud83d\ud83d\ude00x\ud83d'])
      expect(textProblem(s)).toBe(SURROGATE_MESSAGE);
  });
});
