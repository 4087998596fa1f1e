import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';

/**
 * Secrets at rest (the institutions' webhook signing secrets): AES-256-GCM under SECRETS_KEY.
 * Stored as base64(iv(12) | tag(16) | ciphertext). A fresh random IV per encryption; the tag
 * makes any change to the stored value (or a wrong key) fail loudly instead of decrypting to
 * garbage.
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

export function encryptSecret(plaintext: string, key: Buffer): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export function decryptSecret(stored: string, key: Buffer): string {
  checkKey(key);
  const raw = Buffer.from(stored, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretDecryptionError();
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SecretDecryptionError();
  }
}
