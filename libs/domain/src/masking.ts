import { isPseudonym, maskPseudonym } from './pseudonym';

/**
 * Display form of an opaque token: first 4 + `****` + last 4; 8 characters or fewer show as
 * `****`. An erased cardholder's pseudonym has a form of its own (`erased_****` + last 4).
 */
export function maskToken(token: string): string {
  if (isPseudonym(token)) return maskPseudonym(token);
  if (token.length <= 8) return '****';
  return `${token.slice(0, 4)}****${token.slice(-4)}`;
}
