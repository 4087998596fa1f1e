/**
 * One key for a tuple of values, for the Maps that group a chunk's rows (institution and ref,
 * cardholder and merchant, enrollment and round): the parts joined by NUL, which no stored text
 * holds (text input with NUL is refused), so two different tuples never share a key.
 */
export const compositeKey = (...parts: readonly (string | number)[]): string =>
  parts.join('\u0000');
