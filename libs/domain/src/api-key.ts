import { createHash, randomBytes } from 'crypto';

/** Recognizable prefix so secret scanners can find leaked keys. */
export const API_KEY_PREFIX = 'plo_live_';
export const SCOPES = ['offers', 'transactions', 'reporting', 'privacy', 'claims'] as const;
export type Scope = (typeof SCOPES)[number];
/**
 * The published scopes: what a key made without a scope list holds, and what a new key gets by
 * default. Every other scope (`privacy`, `claims`) is granted by name only, never implied.
 */
export const IMPLIED_SCOPES: readonly Scope[] = ['offers', 'transactions', 'reporting'];
/**
 * Scopes that only an operator or an institution's staff `admin` may put on a key: `privacy`
 * erases cardholders and exports what is stored about them (docs/privacy.md).
 */
export const ADMIN_ONLY_SCOPES: readonly Scope[] = ['privacy'];

/** 32 random bytes (256 bits), base64url: the plaintext is shown once and never stored. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

/** Non-secret display hint: the prefix and the last 4 characters. */
export function apiKeyHint(plaintext: string): string {
  return `${API_KEY_PREFIX}…${plaintext.slice(-4)}`;
}

/** A NULL scope list comes from keys made before scopes existed: they hold the published three. */
export function effectiveScopes(scopes: readonly string[] | null | undefined): Scope[] {
  return scopes == null ? [...IMPLIED_SCOPES] : SCOPES.filter((s) => scopes.includes(s));
}

/**
 * Whether someone may create a key with these scopes: an operator or a staff `admin` any; anyone
 * else (a portal role other than admin) none of ADMIN_ONLY_SCOPES.
 */
export function mayGrantScopes(grantor: string, scopes: readonly string[]): boolean {
  if (grantor === 'operator' || grantor === 'admin') return true;
  return !scopes.some((s) => (ADMIN_ONLY_SCOPES as readonly string[]).includes(s));
}

export function defaultKeyExpiry(now: Date = new Date()): Date {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() + 1);
  return d;
}
