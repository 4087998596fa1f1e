import { createHash } from 'crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * The console's second factor (docs/operators.md): TOTP (RFC 6238: SHA-1, 6 digits, 30 s, as
 * every authenticator app reads an otpauth:// URI) with one step of clock drift either way, each
 * step usable once; and single-use recovery codes for a lost device.
 */

export const TOTP_ISSUER = 'Offers console';
export const RECOVERY_CODE_COUNT = 10;
const PERIOD = 30;
const DRIFT_STEPS = 1;

/** A new shared secret (160 random bits, base32) and the URI an authenticator app scans. */
export function newTotpSecret(account: string): { secret: string; uri: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, uri: totpOf(secret, account).toString() };
}

/**
 * The time step a code was made for, when it is right within the drift; null otherwise. The
 * caller refuses a step at or before the last one used (so a code seen once cannot be replayed).
 */
export function totpStep(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = totpOf(secret, '');
  const delta = totp.validate({ token: code, timestamp: now, window: DRIFT_STEPS });
  return delta === null ? null : totp.counter({ timestamp: now }) + delta;
}

/** The code of a time (for tests and for showing what an app should display). */
export function totpCode(secret: string, at = Date.now()): string {
  return totpOf(secret, '').generate({ timestamp: at });
}

function totpOf(secret: string, account: string): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label: account,
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
  });
}

/** Ten codes of 10 base32 characters (50 bits each), shown as `xxxxx-xxxxx`. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = new Secret({ size: 7 }).base32.slice(0, 10).toLowerCase();
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

/** A recovery code as stored (SHA-256 of the code without case, spaces or dashes). */
export function recoveryCodeHash(code: string): string {
  const normal = code.toLowerCase().replace(/[\s-]/g, '');
  return createHash('sha256').update(`recovery:${normal}`, 'utf8').digest('hex');
}
