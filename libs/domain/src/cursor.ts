import { hmacSha256 } from './hmac';
import { safeEqual } from './signing';

/**
 * Opaque, tamper-evident keyset cursors: base64url(JSON payload) + '.' + MAC. The payload holds
 * the last row's sort key and a scope (e.g. the institution and list), so a cursor from another
 * list or institution is refused like a forged one.
 */
export interface CursorKey {
  /** ISO timestamp of the last row's created_at (microseconds kept as text). */
  t: string;
  /** Last row's id. */
  id: string;
}

export function encodeCursor(secret: Buffer, scope: string, key: CursorKey): string {
  const body = Buffer.from(JSON.stringify(key)).toString('base64url');
  return `${body}.${mac(secret, scope, body)}`;
}

/** Returns the key, or null when the cursor is malformed, forged or from another scope. */
export function decodeCursor(secret: Buffer, scope: string, cursor: string): CursorKey | null {
  const [body, tag, extra] = cursor.split('.');
  if (!body || !tag || extra !== undefined) return null;
  if (!safeEqual(tag, mac(secret, scope, body))) return null;
  try {
    const key = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorKey;
    return typeof key?.t === 'string' && typeof key?.id === 'string' ? key : null;
  } catch {
    return null;
  }
}

function mac(secret: Buffer, scope: string, body: string): string {
  return hmacSha256(secret, `cursor:${scope}:${body}`).toString('base64url').slice(0, 22);
}
