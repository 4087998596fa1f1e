/**
 * The one string rule of every API: text is well-formed Unicode (no lone UTF-16 surrogate, which
 * PostgreSQL would silently store as U+FFFD, so the stored value would differ from the one sent)
 * and carries no NUL character (which PostgreSQL text cannot hold).
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const NUL_MESSAGE = 'must not contain NUL characters';
export const SURROGATE_MESSAGE = 'must be well-formed Unicode (no lone surrogate code units)';

/** Why a string may not be accepted, or null when it may. */
export function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(s)) return SURROGATE_MESSAGE;
  return null;
}
