import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';
import type { KeyRing } from '@app/config';

/**
 * Secrets at rest (the institutions' webhook signing secrets, custom headers, client
 * certificates): AES-256-GCM under the `secrets-encryption` key derived from SECRETS_KEY.
 * Stored as base64(iv(12) | tag(16) | ciphertext). A fresh random IV per encryption; the tag
 * makes any change to the stored value (or a wrong key) fail loudly instead of decrypting to
 * garbage, which is also how a value stored by an earlier release (under SECRETS_KEY itself) is
 * told apart: it fails under the derived key and opens under SECRETS_KEY, until `cli reencrypt`
 * moves it.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretDecryptionError extends Error {
  constructor() {
    super('stored secret cannot be decrypted (wrong SECRETS_KEY or tampered value)');
    this.name = 'SecretDecryptionError';
  }
}

function checkKey(key: Buffer): void {
  if (key.length !== 32) throw new RangeError('SECRETS_KEY must be 32 bytes');
}

/** Encryption under one raw key (what earlier releases did with SECRETS_KEY itself). */
export function encryptWithKey(plaintext: string, key: Buffer): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export function decryptWithKey(stored: string, key: Buffer): string | null {
  checkKey(key);
  const raw = Buffer.from(stored, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) return null;
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return null;
  }
}

export function encryptSecret(plaintext: string, keys: KeyRing): string {
  return encryptWithKey(plaintext, keys.secretsEncryption);
}

/** Opens a value stored under the derived key, or under SECRETS_KEY by an earlier release. */
export function decryptSecret(stored: string, keys: KeyRing): string {
  for (const key of keys.secretDecryptors) {
    const plaintext = decryptWithKey(stored, key);
    if (plaintext !== null) return plaintext;
  }
  throw new SecretDecryptionError();
}

/**
 * The value re-encrypted under the derived key when it is stored under SECRETS_KEY itself; null
 * when it already is under the derived key (nothing to do). Throws when neither key opens it.
 */
export function reencryptSecret(stored: string, keys: KeyRing): string | null {
  if (decryptWithKey(stored, keys.secretsEncryption) !== null) return null;
  const plaintext = decryptWithKey(stored, keys.legacy);
  if (plaintext === null) throw new SecretDecryptionError();
  return encryptSecret(plaintext, keys);
}
