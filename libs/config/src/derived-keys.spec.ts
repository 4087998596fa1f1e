import { createHmac } from 'crypto';
import { deriveKey, KeyRing, LEGACY_MAC_GRACE_MS } from './derived-keys';

// RFC 5869 with an empty salt: PRK = HMAC(zeros, IKM), OKM = HMAC(PRK, info || 0x01) for 32 bytes.
function hkdfByHand(ikm: Buffer, info: string): Buffer {
  const prk = createHmac('sha256', Buffer.alloc(32)).update(ikm).digest();
  return createHmac('sha256', prk)
    .update(Buffer.concat([Buffer.from(info), Buffer.from([1])]))
    .digest();
}

describe('deriveKey', () => {
  const secretsKey = Buffer.alloc(32, 7);

  it('is HKDF-SHA256 with an empty salt and info "plo/v1/<purpose>"', () => {
    expect(deriveKey(secretsKey, 'cursor-mac')).toEqual(
      hkdfByHand(secretsKey, 'plo/v1/cursor-mac'),
    );
  });

  it('gives each purpose its own 32-byte key, never the secrets key itself', () => {
    const keys = [
      deriveKey(secretsKey, 'secrets-encryption'),
      deriveKey(secretsKey, 'cursor-mac'),
      deriveKey(secretsKey, 'csrf-mac'),
      deriveKey(secretsKey, 'holdout/8d3f0c1e-4a55-4c1b-9d2e-3f4a5b6c7d8e'),
    ].map((k) => k.toString('hex'));
    expect(new Set([...keys, secretsKey.toString('hex')]).size).toBe(5);
    for (const k of keys) expect(k).toHaveLength(64);
  });
});

describe('KeyRing', () => {
  const ring = new KeyRing(Buffer.alloc(32, 7));

  it('holds the derived keys of secrets-encryption, cursor-mac and csrf-mac', () => {
    expect(ring.secretsEncryption).toEqual(deriveKey(ring.legacy, 'secrets-encryption'));
    expect(ring.cursorMac).toEqual(deriveKey(ring.legacy, 'cursor-mac'));
    expect(ring.csrfMac).toEqual(deriveKey(ring.legacy, 'csrf-mac'));
  });

  it('verifies MACs with SECRETS_KEY itself too for 24 h after the upgrade, then with the derived key only', () => {
    const upgraded = Date.UTC(2026, 10, 26, 12);
    ring.upgradedAt(new Date(upgraded));
    expect(ring.macVerifiers('cursor-mac', upgraded + 1)).toEqual([ring.cursorMac, ring.legacy]);
    expect(ring.macVerifiers('csrf-mac', upgraded + LEGACY_MAC_GRACE_MS - 1)).toEqual([
      ring.csrfMac,
      ring.legacy,
    ]);
    expect(ring.macVerifiers('cursor-mac', upgraded + LEGACY_MAC_GRACE_MS)).toEqual([
      ring.cursorMac,
    ]);
    ring.upgradedAt(null);
    expect(ring.macVerifiers('csrf-mac', upgraded)).toEqual([ring.csrfMac]);
  });

  it('decrypts stored secrets with the derived key, then SECRETS_KEY (until reencrypt)', () => {
    expect(ring.secretDecryptors).toEqual([ring.secretsEncryption, ring.legacy]);
  });
});
