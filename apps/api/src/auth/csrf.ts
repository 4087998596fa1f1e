import type { KeyRing } from '@app/config';
import { hmacSha256, safeEqual } from '@app/domain';

/**
 * The X-CSRF-Token of a cookie session (the portal's and the operators' console): a MAC of the
 * session token under the `csrf-mac` key, so nothing more is stored and it is useless without
 * the cookie.
 */
export function csrfFor(keys: KeyRing, sessionToken: string, key = keys.csrfMac): string {
  return hmacSha256(key, `csrf:${sessionToken}`).toString('base64url');
}

/** Also accepts, for 24 h after the upgrade, a token MACed with SECRETS_KEY itself (an open tab's). */
export function csrfMatches(
  keys: KeyRing,
  sessionToken: string,
  header: string | undefined,
): boolean {
  return (
    !!header &&
    keys.macVerifiers('csrf-mac').some((key) => safeEqual(header, csrfFor(keys, sessionToken, key)))
  );
}
