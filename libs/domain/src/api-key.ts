import { createHash, randomBytes } from 'crypto';

/** Recognizable prefix so secret scanners can find leaked keys. */
export const API_KEY_PREFIX = 'plo_live_';
export const SCOPES = ['offers', 'transactions', 'reporting'] as const;
export type Scope = (typeof SCOPES)[number];

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

/** A NULL scope list comes from keys made before scopes existed: they hold all three. */
export function effectiveScopes(scopes: readonly string[] | null | undefined): Scope[] {
  return scopes == null ? [...SCOPES] : SCOPES.filter((s) => scopes.includes(s));
}

export function defaultKeyExpiry(now: Date = new Date()): Date {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() + 1);
  return d;
}
