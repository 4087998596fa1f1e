import fc from 'fast-check';
import { contrast, textOnAccent, toHex, type Rgb } from './text-on-accent';

const rgb = (hex: string): Rgb => {
  const full = hex.length === 4 ? hex.replace(/[0-9a-f]/gi, (c) => c + c) : hex;
  return [1, 3, 5].map((i) => parseInt(full.slice(i, i + 2), 16)) as unknown as Rgb;
};
const colour = fc.tuple(
  fc.integer({ min: 0, max: 255 }),
  fc.integer({ min: 0, max: 255 }),
  fc.integer({ min: 0, max: 255 }),
) as fc.Arbitrary<Rgb>;

describe('contrast: the WCAG 2.x ratio', () => {
  it('is 21:1 for black on white, 1:1 for a colour on itself, whatever the order', () => {
    expect(contrast(rgb('#000'), rgb('#fff'))).toBeCloseTo(21, 5);
    expect(contrast(rgb('#fff'), rgb('#000'))).toBeCloseTo(21, 5);
    expect(contrast(rgb('#0a58d0'), rgb('#0a58d0'))).toBe(1);
  });
});

describe("textOnAccent: the host's text colour only when legible, else black or white", () => {
  it("keeps the host's colour when it reaches 4.5:1 on the accent", () => {
    expect(toHex(textOnAccent(rgb('#0a58d0'), rgb('#ffffff')))).toBe('#ffffff');
    expect(toHex(textOnAccent(rgb('#8ab4ff'), rgb('#0b1220')))).toBe('#0b1220');
  });

  it('replaces it below 4.5:1: the dark palette text on a dark host accent becomes white', () => {
    // The dark palette's text-on-accent on a mid-blue host accent: about 3.1:1.
    expect(contrast(rgb('#0b1220'), rgb('#0a58d0'))).toBeLessThan(4.5);
    expect(toHex(textOnAccent(rgb('#0a58d0'), rgb('#0b1220')))).toBe('#ffffff');
    // White on a light host accent: black instead.
    expect(toHex(textOnAccent(rgb('#ffd54f'), rgb('#ffffff')))).toBe('#000000');
  });

  it('without a host colour, black or white, whichever contrasts more', () => {
    expect(toHex(textOnAccent(rgb('#111827'), null))).toBe('#ffffff');
    expect(toHex(textOnAccent(rgb('#e0f2fe'), null))).toBe('#000000');
  });

  it('always reaches 4.5:1, and black or white reaches 4.58:1 on any colour', () => {
    fc.assert(
      fc.property(colour, fc.option(colour, { nil: null }), (accent, preferred) => {
        const text = textOnAccent(accent, preferred);
        expect(contrast(text, accent)).toBeGreaterThanOrEqual(4.5);
        if (text !== preferred) expect(contrast(text, accent)).toBeGreaterThanOrEqual(4.58);
        if (preferred && contrast(preferred, accent) >= 4.5) expect(text).toBe(preferred);
      }),
      { numRuns: 5000 },
    );
  });
});
