import { hash } from 'crypto';
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';

const BLOCK = 64;

/**
 * HMAC-SHA256 (RFC 2104) over Node's one-shot SHA-256. On Node 24 (OpenSSL 3.5) each
 * `createHmac` costs about 80 µs of setup, six times Node 20's, and the feed computes one per
 * holdout offer per read; two one-shot hashes cost about 4 µs. The result is byte for byte
 * `createHmac('sha256', key)` over the concatenated parts (hmac.spec.ts checks RFC 4231's
 * vectors and random inputs against it).
 */
export function hmacSha256(key: Buffer | string, ...parts: (Buffer | string)[]): Buffer {
  let k = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  if (k.length > BLOCK) k = hash('sha256', k, 'buffer');
  const inner = Buffer.alloc(BLOCK, 0x36);
  const outer = Buffer.alloc(BLOCK, 0x5c);
  for (let i = 0; i < k.length; i++) {
    inner[i] ^= k[i];
    outer[i] ^= k[i];
  }
  const message = parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p));
  const innerHash = hash('sha256', Buffer.concat([inner, ...message]), 'buffer');
  return hash('sha256', Buffer.concat([outer, innerHash]), 'buffer');
}

export type Mac = (...parts: string[]) => Buffer;

/**
 * The same MAC for one key over short UTF-8 messages, for a key that signs many of them (the
 * feed's holdout buckets: one per holdout offer per read): @noble/hashes' HMAC keyed once, and
 * its state after the key's inner and outer blocks cloned into one reused instance per call. Two
 * SHA-256 compressions a call and no call into the crypto binding: about 1.2 µs against 2.7 µs
 * for `hmacSha256` (docs/performance.md). Each call returns a new Buffer; the keyed state holds
 * its own copy of the key.
 */
export function keyedHmacSha256(key: Buffer | string): Mac {
  const keyed = hmac.create(sha256, typeof key === 'string' ? Buffer.from(key, 'utf8') : key);
  const work = keyed._cloneInto();
  let message = Buffer.alloc(BLOCK * 4);
  return (...parts) => {
    let size = 0;
    for (const p of parts) size += Buffer.byteLength(p, 'utf8');
    if (size > message.length) message = Buffer.alloc(size * 2);
    let at = 0;
    for (const p of parts) at += message.write(p, at, 'utf8');
    keyed._cloneInto(work);
    const mac = work.update(message.subarray(0, at)).digest();
    return Buffer.from(mac.buffer, mac.byteOffset, mac.length);
  };
}
