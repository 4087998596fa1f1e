import { hmacSha256 } from './hmac';
import { parseDecimal } from './money';

/**
 * Holdouts (docs/lift.md): a share of an offer's eligible cardholders never sees or gets it, so
 * that their purchases show what the offer's cardholders would have spent without it.
 */

/** The largest holdout: half the eligible cardholders. */
export const MAX_HOLDOUT_BPS = 5_000;
/** Buckets a cardholder falls into, one per basis point. */
export const HOLDOUT_BUCKETS = 10_000n;

/**
 * `holdout_percent` (a JSON number 0–50 with at most one decimal) as integer basis points, read
 * from its decimal text (never binary-float arithmetic): 12.5 → 1250. Null when it is negative,
 * above 50 or has more than one decimal (an exponent such as 1e-7 is refused too).
 */
export function holdoutBpsOf(percent: number): number | null {
  if (typeof percent !== 'number' || !Number.isFinite(percent)) return null;
  const d = parseDecimal(String(percent));
  if (!d || d.negative || d.frac.length > 1 || d.whole.length > 2) return null;
  const bps = Number(d.whole) * 100 + Number(d.frac || '0') * 10;
  return bps <= MAX_HOLDOUT_BPS ? bps : null;
}

/** Basis points back to the percent as sent (1250 → 12.5, 0 → 0). */
export function holdoutPercentOf(bps: number): number {
  return bps / 100;
}

/**
 * The cardholder's bucket for an offer, 0–9999: the first 8 bytes of
 * HMAC-SHA256(K, utf8(offer id, lowercase hyphenated) ‖ utf8(cardholder token)) read as an
 * unsigned big-endian 64-bit integer, modulo 10,000. K is the institution's holdout key
 * (deriveKey(SECRETS_KEY, 'holdout/' + institution_id)). Stable across processes and time, and
 * reproducible by the bank once it has its key.
 */
export function holdoutBucket(key: Buffer, offerId: string, cardholderToken: string): number {
  const mac = hmacSha256(key, offerId.toLowerCase(), cardholderToken);
  return Number(mac.readBigUInt64BE(0) % HOLDOUT_BUCKETS);
}

/** In the holdout: the bucket is below the offer's holdout_bps (never for an offer without one). */
export function inHoldout(
  key: Buffer,
  offerId: string,
  cardholderToken: string,
  holdoutBps: number,
): boolean {
  return holdoutBps > 0 && holdoutBucket(key, offerId, cardholderToken) < holdoutBps;
}
