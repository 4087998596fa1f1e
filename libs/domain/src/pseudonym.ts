import { randomBytes } from 'crypto';

/**
 * The pseudonym that replaces an erased cardholder's token (docs/privacy.md): `erased_` and 22
 * base64url characters, drawn at random once per erasure. Nothing maps it back to the token.
 */
export const PSEUDONYM_PREFIX = 'erased_';
const PSEUDONYM = /^erased_[A-Za-z0-9_-]{22}$/;

/** A fresh pseudonym: 16 random bytes, of which the first 22 base64url characters (132 bits). */
export function newPseudonym(random: (n: number) => Buffer = randomBytes): string {
  return PSEUDONYM_PREFIX + random(16).toString('base64url').slice(0, 22);
}

export function isPseudonym(token: string): boolean {
  return PSEUDONYM.test(token);
}

/**
 * A pseudonym's own display form: `erased_****` and its last 4 characters. It says that the
 * cardholder was erased and shares nothing with the masked form of the token it replaced.
 */
export function maskPseudonym(pseudonym: string): string {
  return `${PSEUDONYM_PREFIX}****${pseudonym.slice(-4)}`;
}
