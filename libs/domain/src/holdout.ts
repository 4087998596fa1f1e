import { keyedHmacSha256 } from './hmac';
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

/** A cardholder's bucket for an offer under one key (holdoutBuckets). */
export type HoldoutBuckets = (offerId: string, cardholderToken: string) => number;

/** 2^32 mod 10,000: the high word's share of the 64-bit value's remainder. */
const HIGH_WORD_MOD = Number(2n ** 32n % HOLDOUT_BUCKETS);

/**
 * The buckets under key K, 0–9999 each: the first 8 bytes of
 * HMAC-SHA256(K, utf8(offer id, lowercase hyphenated) ‖ utf8(cardholder token)) read as an
 * unsigned big-endian 64-bit integer, modulo 10,000. K is the institution's holdout key
 * (deriveKey(SECRETS_KEY, 'holdout/' + institution_id)). Stable across processes and time, and
 * reproducible by the bank once it has its key. The key's HMAC pads are computed once here: keep
 * the function for a key that judges many offers (HoldoutKeys does, per institution).
 */
export function holdoutBuckets(key: Buffer): HoldoutBuckets {
  const mac = keyedHmacSha256(key);
  return (offerId, cardholderToken) => {
    const m = mac(offerId.toLowerCase(), cardholderToken);
    // (high · 2^32 + low) mod 10,000 in exact integer arithmetic (every step below 2^53).
    const buckets = Number(HOLDOUT_BUCKETS);
    return ((m.readUInt32BE(0) % buckets) * HIGH_WORD_MOD + m.readUInt32BE(4)) % buckets;
  };
}

/** The cardholder's bucket for an offer (holdoutBuckets, for one offer). */
export function holdoutBucket(key: Buffer, offerId: string, cardholderToken: string): number {
  return holdoutBuckets(key)(offerId, cardholderToken);
}

/**
 * In the holdout: the bucket is below the offer's holdout_bps (never for an offer without one).
 * `key` is the institution's key, or its buckets when one key judges many offers.
 */
export function inHoldout(
  key: Buffer | HoldoutBuckets,
  offerId: string,
  cardholderToken: string,
  holdoutBps: number,
): boolean {
  if (holdoutBps <= 0) return false;
  const bucketOf = typeof key === 'function' ? key : holdoutBuckets(key);
  return bucketOf(offerId, cardholderToken) < holdoutBps;
}
