/**
 * The colour of text on the widget's accent (its buttons): the host's choice when it is legible,
 * else black or white, whichever contrasts more. WCAG 2.x contrast; AA for normal text is 4.5:1.
 * Pure and dependency-free: the widget's browser bundle imports this file directly.
 */

export type Rgb = readonly [r: number, g: number, b: number];

export const MIN_TEXT_CONTRAST = 4.5;
const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];

/** WCAG relative luminance of an sRGB colour (channels 0–255). */
export function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio of two colours, from 1 (same) to 21 (black on white). */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The text colour on `accent`: `preferred` (the host's) when it reaches 4.5:1 on it, otherwise
 * black or white, whichever contrasts more (at least 4.58:1 on any colour).
 */
export function textOnAccent(accent: Rgb, preferred: Rgb | null): Rgb {
  if (preferred && contrast(preferred, accent) >= MIN_TEXT_CONTRAST) return preferred;
  return contrast(BLACK, accent) >= contrast(WHITE, accent) ? BLACK : WHITE;
}

/** `#rrggbb`. */
export function toHex(rgb: Rgb): string {
  return `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}
