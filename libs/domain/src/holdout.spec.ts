import { createHmac, randomBytes } from 'crypto';
import {
  holdoutBpsOf,
  holdoutBucket,
  holdoutBuckets,
  holdoutPercentOf,
  inHoldout,
} from './holdout';

// The documented vectors (docs/lift.md), computed independently with
//   printf '%s%s' "$offer" "$token" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$K
// and the first 16 hex digits taken modulo 10000 with bc. K itself is
// deriveKey(32 bytes of 0x01, 'holdout/5b3f0c2e-8d4a-4e6b-9f1a-2c3d4e5f6a7b'), from
//   openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt hexkey:0101…01 -kdfopt salt:
//     -kdfopt info:plo/v1/holdout/5b3f0c2e-8d4a-4e6b-9f1a-2c3d4e5f6a7b HKDF
const K = Buffer.from('17c014a6f522c98c611426226871e7491f43e9834f33048026292f5bc7daacfa', 'hex');
const OFFER = '0b6e2f1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b';

describe('holdout_percent is read as decimal text into basis points', () => {
  it.each([
    [0, 0],
    [20, 2000],
    [12.5, 1250],
    [0.1, 10],
    [33.3, 3330],
    [50, 5000],
  ])('%p → %p bps, echoed as sent', (percent, bps) => {
    expect(holdoutBpsOf(percent)).toBe(bps);
    expect(holdoutPercentOf(bps)).toBe(percent);
  });

  it.each([-1, 50.1, 51, 100, 12.55, 0.05, 1e-7, NaN, Infinity])('%p is refused', (percent) => {
    expect(holdoutBpsOf(percent)).toBeNull();
  });
});

describe('a cardholder is in the holdout when the bucket of HMAC(K, offer ‖ token) is below holdout_bps', () => {
  it('pins the documented vectors', () => {
    expect(holdoutBucket(K, OFFER, 'tok_alice')).toBe(4423);
    expect(holdoutBucket(K, OFFER, 'tok_bob')).toBe(8832);
    expect(holdoutBucket(K, '7d1c9e44-5a2b-4c3d-9e8f-112233445566', 'cardholder-ñ-42')).toBe(7197);
  });

  it('reads the offer id lowercase', () => {
    expect(holdoutBucket(K, OFFER.toUpperCase(), 'tok_alice')).toBe(4423);
  });

  it('compares the bucket with holdout_bps, strictly below', () => {
    expect(inHoldout(K, OFFER, 'tok_alice', 4424)).toBe(true);
    expect(inHoldout(K, OFFER, 'tok_alice', 4423)).toBe(false);
    expect(inHoldout(K, OFFER, 'tok_bob', 5000)).toBe(false);
  });

  it('never holds anyone out of an offer without a holdout', () => {
    expect(inHoldout(K, OFFER, 'tok_alice', 0)).toBe(false);
  });

  it('puts close to the configured share in the holdout', () => {
    let held = 0;
    for (let i = 0; i < 10_000; i++) if (inHoldout(K, OFFER, `tok_${i}`, 2000)) held++;
    expect(held).toBeGreaterThanOrEqual(1800);
    expect(held).toBeLessThanOrEqual(2200);
  });
});

describe('one key’s buckets, kept for many offers', () => {
  it('are the first 8 bytes of the HMAC as a 64-bit integer modulo 10,000, for any key, offer and token', () => {
    for (let k = 0; k < 5; k++) {
      const key = randomBytes(32);
      const buckets = holdoutBuckets(key);
      for (let i = 0; i < 400; i++) {
        const offer = randomBytes(16).toString('hex');
        const token = `tok_${randomBytes(1 + (i % 40)).toString('base64url')}`;
        const mac = createHmac('sha256', key)
          .update(offer + token, 'utf8')
          .digest();
        const expected = Number(mac.readBigUInt64BE(0) % 10_000n);
        expect(buckets(offer, token)).toBe(expected);
        expect(holdoutBucket(key, offer, token)).toBe(expected);
        expect(inHoldout(buckets, offer, token, 5000)).toBe(inHoldout(key, offer, token, 5000));
      }
    }
  });

  it('give the documented vectors, the offer id read lowercase', () => {
    const buckets = holdoutBuckets(K);
    expect(buckets(OFFER, 'tok_alice')).toBe(4423);
    expect(buckets(OFFER.toUpperCase(), 'tok_bob')).toBe(8832);
    expect(inHoldout(buckets, OFFER, 'tok_alice', 4424)).toBe(true);
    expect(inHoldout(buckets, OFFER, 'tok_alice', 0)).toBe(false);
  });
});
