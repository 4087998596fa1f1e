import { randomBytes } from 'crypto';
import { decryptSecret, encryptSecret, SecretDecryptionError } from './secrets';

describe('secrets (AES-256-GCM at rest)', () => {
  const key = randomBytes(32);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  it('round-trips', () => {
    expect(decryptSecret(encryptSecret(secret, key), key)).toBe(secret);
    expect(decryptSecret(encryptSecret('', key), key)).toBe('');
  });

  it('uses a fresh IV: the same secret never encrypts to the same text, and the plaintext does not show', () => {
    const a = encryptSecret(secret, key);
    const b = encryptSecret(secret, key);
    expect(a).not.toBe(b);
    expect(Buffer.from(a, 'base64').toString('latin1')).not.toContain('whsec_');
    // iv (12) + tag (16) + ciphertext (same length as the plaintext)
    expect(Buffer.from(a, 'base64').length).toBe(12 + 16 + Buffer.byteLength(secret));
  });

  it('fails on a wrong key', () => {
    expect(() => decryptSecret(encryptSecret(secret, key), randomBytes(32))).toThrow(
      SecretDecryptionError,
    );
  });

  it('fails on any tampering (iv, tag or ciphertext) and on truncated values', () => {
    const stored = Buffer.from(encryptSecret(secret, key), 'base64');
    for (const at of [0, 13, 30, stored.length - 1]) {
      const bad = Buffer.from(stored);
      bad[at] ^= 0x01;
      expect(() => decryptSecret(bad.toString('base64'), key)).toThrow(SecretDecryptionError);
    }
    expect(() => decryptSecret(stored.subarray(0, 20).toString('base64'), key)).toThrow(
      SecretDecryptionError,
    );
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => encryptSecret(secret, randomBytes(16))).toThrow(RangeError);
  });
});
