import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'crypto';

/**
 * Cardholder sessions: the short-lived token an institution's back end mints for one cardholder,
 * so that a browser can read the offer feed and add offers without ever holding an API key.
 *
 * The token is sealed, not stored: AES-256-GCM under a key derived from SECRETS_KEY, over the
 * session's claims. It reads as random bytes (no cardholder data in readable form), any change
 * to it fails the authentication tag, and nothing about the cardholder or the segment is written
 * anywhere (the segment is never stored, as for the feed). The price: a session cannot be revoked
 * before it expires, which is why its life is short (at most an hour).
 *
 * Layout: `cs_` + base64url(version(1) | iv(12) | tag(16) | ciphertext).
 */
export const SESSION_PREFIX = 'cs_';
export const SESSION_TTL_MIN_SECONDS = 60;
export const SESSION_TTL_MAX_SECONDS = 3600;
export const SESSION_TTL_DEFAULT_SECONDS = 900;

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
/** Additional data bound into the tag: a token sealed for another purpose never opens here. */
const AAD = Buffer.from('cardholder-session:v1');
/** Longest token accepted before any work is done (the claims are bounded well below this). */
export const SESSION_TOKEN_MAX_LENGTH = 2048;

export interface SessionClaims {
  institutionId: string;
  cardholderToken: string;
  cardToken?: string;
  segment?: string;
  locale?: string;
  /** Expiry, Unix milliseconds. */
  expiresAtMs: number;
  /** Minted by the portal for a preview: its views and adds are not counted in the funnel. */
  preview?: boolean;
}

export type OpenedSession =
  | { ok: true; claims: SessionClaims; sessionId: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'expired'; claims: SessionClaims; sessionId: string };

/** The session key: derived from SECRETS_KEY so it is never the key that encrypts other secrets. */
export function sessionKey(secretsKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'cardholder-session', 32));
}

/** A clamped session lifetime: default when absent; callers validate the 60–3600 range first. */
export function sessionTtlSeconds(requested: number | undefined): number {
  const ttl = requested ?? SESSION_TTL_DEFAULT_SECONDS;
  return Math.min(SESSION_TTL_MAX_SECONDS, Math.max(SESSION_TTL_MIN_SECONDS, ttl));
}

export function sealSession(claims: SessionClaims, key: Buffer): string {
  const body = JSON.stringify({
    i: claims.institutionId,
    c: claims.cardholderToken,
    k: claims.cardToken,
    s: claims.segment,
    l: claims.locale,
    e: claims.expiresAtMs,
    p: claims.preview ? 1 : undefined,
  });
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const ciphertext = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  const raw = Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]);
  return SESSION_PREFIX + raw.toString('base64url');
}

/**
 * Opens a token: `invalid` for anything that is not a token this service sealed with this key
 * (wrong prefix, bad encoding, a changed byte, another key); `expired` once its time is up.
 * Expiry is judged only after the tag verified, so a forged token never learns more than
 * "invalid".
 */
export function openSession(token: string, key: Buffer, nowMs = Date.now()): OpenedSession {
  if (!token.startsWith(SESSION_PREFIX) || token.length > SESSION_TOKEN_MAX_LENGTH)
    return { ok: false, reason: 'invalid' };
  const encoded = token.slice(SESSION_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return { ok: false, reason: 'invalid' };
  const raw = Buffer.from(encoded, 'base64url');
  if (raw.length <= HEADER_BYTES || raw[0] !== VERSION) return { ok: false, reason: 'invalid' };
  let body: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(AAD);
    decipher.setAuthTag(raw.subarray(1 + IV_BYTES, HEADER_BYTES));
    body = Buffer.concat([decipher.update(raw.subarray(HEADER_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  const claims = parseClaims(body);
  if (!claims) return { ok: false, reason: 'invalid' };
  // The IV is random per session: a stable, non-secret handle (rate limits, logs).
  const sessionId = createHash('sha256')
    .update(raw.subarray(1, 1 + IV_BYTES))
    .digest('hex')
    .slice(0, 32);
  if (claims.expiresAtMs <= nowMs) return { ok: false, reason: 'expired', claims, sessionId };
  return { ok: true, claims, sessionId };
}

function parseClaims(body: string): SessionClaims | null {
  try {
    const o = JSON.parse(body) as Record<string, unknown>;
    if (typeof o.i !== 'string' || typeof o.c !== 'string' || typeof o.e !== 'number') return null;
    const opt = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return {
      institutionId: o.i,
      cardholderToken: o.c,
      cardToken: opt(o.k),
      segment: opt(o.s),
      locale: opt(o.l),
      expiresAtMs: o.e,
      preview: o.p === 1 ? true : undefined,
    };
  } catch {
    return null;
  }
}
