import { hkdfSync } from 'crypto';

/**
 * Every key the service uses is derived from SECRETS_KEY for one purpose, so a key that leaks
 * from one use (a cursor MAC, say) says nothing about another (the encryption of stored secrets):
 * HKDF-SHA256 with an empty salt and `info = "plo/v1/<purpose>"`, 32 bytes. docs/operations.md
 * lists the purposes.
 */
export type KeyPurpose =
  'secrets-encryption' | 'cursor-mac' | 'csrf-mac' | 'sso-flight' | `holdout/${string}`;

export function deriveKey(secretsKey: Buffer, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), `plo/v1/${purpose}`, 32));
}

/** How long after the upgrade a cursor or CSRF token MACed with SECRETS_KEY itself is accepted. */
export const LEGACY_MAC_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * The keys of one SECRETS_KEY. Releases before the per-purpose keys used SECRETS_KEY itself for
 * all three uses (`legacy`): stored secrets encrypted with it stay readable until `cli reencrypt`
 * moves them, and its MACs are accepted until LEGACY_MAC_GRACE_MS after the upgrade (the api
 * reads the moment from key_derivation.upgraded_at at start).
 */
export class KeyRing {
  readonly secretsEncryption: Buffer;
  readonly cursorMac: Buffer;
  readonly csrfMac: Buffer;
  /** Seals a single sign-on in flight (state, nonce, PKCE verifier) in its browser's cookie. */
  readonly ssoFlight: Buffer;
  private legacyMacsUntil = 0;

  constructor(readonly legacy: Buffer) {
    this.secretsEncryption = deriveKey(legacy, 'secrets-encryption');
    this.cursorMac = deriveKey(legacy, 'cursor-mac');
    this.csrfMac = deriveKey(legacy, 'csrf-mac');
    this.ssoFlight = deriveKey(legacy, 'sso-flight');
  }

  /** Starts the grace of legacy MACs: accepted until upgradedAt + LEGACY_MAC_GRACE_MS. */
  upgradedAt(upgradedAt: Date | number | null): void {
    this.legacyMacsUntil = upgradedAt === null ? 0 : +upgradedAt + LEGACY_MAC_GRACE_MS;
  }

  /** The keys a MAC of this purpose is verified with now: the derived one, then (in grace) SECRETS_KEY. */
  macVerifiers(purpose: 'cursor-mac' | 'csrf-mac', now = Date.now()): Buffer[] {
    const key = purpose === 'cursor-mac' ? this.cursorMac : this.csrfMac;
    return now < this.legacyMacsUntil ? [key, this.legacy] : [key];
  }

  /** The keys a stored secret is decrypted with: the derived one, then SECRETS_KEY (until reencrypt). */
  get secretDecryptors(): Buffer[] {
    return [this.secretsEncryption, this.legacy];
  }
}
