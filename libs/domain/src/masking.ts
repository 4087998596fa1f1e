/** Display form of an opaque token: first 4 + `****` + last 4; 8 characters or fewer show as `****`. */
export function maskToken(token: string): string {
  if (token.length <= 8) return '****';
  return `${token.slice(0, 4)}****${token.slice(-4)}`;
}
