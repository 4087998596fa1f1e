import { randomBytes } from 'crypto';
import { KeyRing } from '@app/config';
import {
  decryptSecret,
  encryptSecret,
  encryptWithKey,
  reencryptSecret,
  SecretDecryptionError,
} from './secrets';

describe('secrets (AES-256-GCM at rest)', () => {
  const keys = new KeyRing(randomBytes(32));
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  it('round-trips', () => {
    expect(decryptSecret(encryptSecret(secret, keys), keys)).toBe(secret);
    expect(decryptSecret(encryptSecret('', keys), keys)).toBe('');
  });

  it('encrypts under the derived secrets-encryption key, never SECRETS_KEY itself', () => {
    const stored = encryptSecret(secret, keys);
    const onlyDerived = { secretDecryptors: [keys.secretsEncryption] } as KeyRing;
    const onlyLegacy = { secretDecryptors: [keys.legacy] } as KeyRing;
    expect(decryptSecret(stored, onlyDerived)).toBe(secret);
    expect(() => decryptSecret(stored, onlyLegacy)).toThrow(SecretDecryptionError);
  });

  it('still opens a value an earlier release stored under SECRETS_KEY; reencrypt moves it once', () => {
    const old = encryptWithKey(secret, keys.legacy);
    expect(decryptSecret(old, keys)).toBe(secret);
    const moved = reencryptSecret(old, keys)!;
    expect(decryptSecret(moved, { secretDecryptors: [keys.secretsEncryption] } as KeyRing)).toBe(
      secret,
    );
    expect(reencryptSecret(moved, keys)).toBeNull();
  });

  it('uses a fresh IV: the same secret never encrypts to the same text, and the plaintext does not show', () => {
    const a = encryptSecret(secret, keys);
    const b = encryptSecret(secret, keys);
    expect(a).not.toBe(b);
    expect(Buffer.from(a, 'base64').toString('latin1')).not.toContain('whsec_');
    // iv (12) + tag (16) + ciphertext (same length as the plaintext)
    expect(Buffer.from(a, 'base64').length).toBe(12 + 16 + Buffer.byteLength(secret));
  });

  it('fails on a wrong key', () => {
    const stored = encryptSecret(secret, keys);
    expect(() => decryptSecret(stored, new KeyRing(randomBytes(32)))).toThrow(
      SecretDecryptionError,
    );
    expect(() => reencryptSecret(stored, new KeyRing(randomBytes(32)))).toThrow(
      SecretDecryptionError,
    );
  });

  it('fails on any tampering (iv, tag or ciphertext) and on truncated values', () => {
    const stored = Buffer.from(encryptSecret(secret, keys), 'base64');
    for (const at of [0, 13, 30, stored.length - 1]) {
      const bad = Buffer.from(stored);
      bad[at] ^= 0x01;
      expect(() => decryptSecret(bad.toString('base64'), keys)).toThrow(SecretDecryptionError);
    }
    expect(() => decryptSecret(stored.subarray(0, 20).toString('base64'), keys)).toThrow(
      SecretDecryptionError,
    );
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => encryptWithKey(secret, randomBytes(16))).toThrow(RangeError);
  });
});
