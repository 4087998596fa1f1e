import { timingSafeEqual } from 'crypto';
import { hmacSha256 } from './hmac';

export function hmacSha256Hex(key: string | Buffer, data: string | Buffer): string {
  return hmacSha256(key, data).toString('hex');
}

/** Constant-time comparison of two strings (false on different lengths). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
