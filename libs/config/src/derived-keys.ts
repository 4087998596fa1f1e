import { hkdfSync } from 'crypto';

/**
 * Every key the service uses is derived from SECRETS_KEY for one purpose, so a key that leaks
 * from one use (a cursor MAC, say) says nothing about another (the encryption of stored secrets):
 * HKDF-SHA256 with an empty salt and `info = "plo/v1/<purpose>"`, 32 bytes. docs/operations.md
 * lists the purposes.
 */
export type KeyPurpose = 'secrets-encryption' | 'cursor-mac' | 'csrf-mac' | `holdout/${string}`;

export function deriveKey(secretsKey: Buffer, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), `plo/v1/${purpose}`, 32));
}
