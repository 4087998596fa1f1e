import { createHmac } from 'crypto';
import {
  generateWebhookSecret,
  serializeWebhookPayload,
  signatureV1,
  signatureV2,
  signWebhook,
  signWebhookAttempt,
  headersForLog,
  standardWebhookSignature,
} from './webhook-signing';
import { verifyWebhook } from './webhook-verify';

const secret = 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtdGVzdC1zZWM=';
const body = Buffer.from('{"event":"redemption.completed","redemption_id":"r1"}');

describe('webhook signing', () => {
  it('generates whsec_ + base64 of 32 random bytes', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(a);
  });

  it('V1 is sha256= + hex HMAC of the raw body, keyed by the whole secret string', () => {
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    expect(signatureV1(body, secret)).toBe(`sha256=${expected}`);
  });

  it('V2 signs "<timestamp>.<raw body>"', () => {
    const expected = createHmac('sha256', secret)
      .update(`1700000000.${body.toString()}`)
      .digest('hex');
    expect(signatureV2(body, secret, 1700000000)).toBe(`sha256=${expected}`);
  });

  it('signWebhook gives the three published headers', () => {
    const h = signWebhook(body, secret, 1700000000);
    expect(Object.keys(h).sort()).toEqual([
      'X-Service-Signature',
      'X-Service-Signature-V2',
      'X-Service-Timestamp',
    ]);
    expect(h['X-Service-Timestamp']).toBe('1700000000');
  });

  it('serializes the published fields in their order whatever the stored key order, extra fields after', () => {
    const stored = {
      occurred_at: '2026-11-21T10:00:00.123Z',
      offer_id: 'o',
      event: 'redemption.completed',
      extra: 1,
      cardholder_token_masked: 'abcd****wxyz',
      institution_payout_amount: 4.5,
      redemption_id: 'r',
      institution_id: 'i',
      cardholder_token: 'abcdefghwxyz',
    };
    const text = serializeWebhookPayload(stored).toString();
    expect(Object.keys(JSON.parse(text))).toEqual([
      'event',
      'redemption_id',
      'institution_id',
      'offer_id',
      'cardholder_token',
      'cardholder_token_masked',
      'institution_payout_amount',
      'occurred_at',
      'extra',
    ]);
    expect(text).toContain('"institution_payout_amount":4.5');
  });
});

describe('verifyWebhook', () => {
  const now = 1_800_000_000;
  const headers = (ts = now) => {
    const h = signWebhook(body, secret, ts);
    // node lower-cases incoming header names
    return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  };

  it('accepts a fresh V2 signature over the exact bytes', () => {
    expect(verifyWebhook(body, headers(), secret, { nowSec: now })).toEqual({
      ok: true,
      scheme: 'v2',
      timestamp: now,
    });
    expect(verifyWebhook(body.toString(), headers(), secret, { nowSec: now + 299 }).ok).toBe(true);
  });

  it('rejects a changed body, a wrong secret, and a stale or future timestamp', () => {
    expect(
      verifyWebhook(Buffer.from(`${body.toString()} `), headers(), secret, { nowSec: now }),
    ).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verifyWebhook(body, headers(), 'whsec_other', { nowSec: now })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyWebhook(body, headers(), secret, { nowSec: now + 301 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifyWebhook(body, headers(), secret, { nowSec: now - 301 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifyWebhook(body, headers(), secret, { nowSec: now + 30, toleranceSec: 10 }).ok).toBe(
      false,
    );
  });

  it('rejects a V2 signature whose timestamp header was swapped (replay with a fresh timestamp)', () => {
    const h = headers(now - 3600);
    h['x-service-timestamp'] = String(now);
    expect(verifyWebhook(body, h, secret, { nowSec: now })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('reports missing or malformed headers', () => {
    expect(verifyWebhook(body, {}, secret).ok).toBe(false);
    const h = headers();
    delete h['x-service-timestamp'];
    expect(verifyWebhook(body, h, secret, { nowSec: now })).toEqual({
      ok: false,
      reason: 'missing_timestamp',
    });
    expect(
      verifyWebhook(body, { ...headers(), 'x-service-timestamp': '12a' }, secret, { nowSec: now }),
    ).toEqual({ ok: false, reason: 'bad_timestamp' });
  });

  it('accepts any of several secrets (rotation), and a Headers-like object', () => {
    expect(verifyWebhook(body, headers(), ['whsec_old', secret], { nowSec: now }).ok).toBe(true);
    const h = headers();
    const bag = { get: (n: string) => h[n.toLowerCase()] ?? null };
    expect(verifyWebhook(body, bag, secret, { nowSec: now }).ok).toBe(true);
  });

  it('V1 on request, without timestamp checks', () => {
    expect(verifyWebhook(body, headers(0), secret, { scheme: 'v1' })).toEqual({
      ok: true,
      scheme: 'v1',
      timestamp: null,
    });
    expect(
      verifyWebhook(body, { 'X-Service-Signature': 'sha256=00' }, secret, { scheme: 'v1' }).ok,
    ).toBe(false);
  });
});

describe('Standard Webhooks signatures', () => {
  // The Standard Webhooks reference vector (same secret, id, timestamp and body as its libraries' tests).
  const vectorSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const vectorBody = Buffer.from('{"test": 2432232314}');

  it('signs "<id>.<timestamp>.<body>" with the bytes of the secret, base64, prefixed v1,', () => {
    expect(
      standardWebhookSignature(
        vectorBody,
        vectorSecret,
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('one signature per valid secret during an overlap, the current one first; the service headers use the current one', () => {
    const h = signWebhookAttempt(body, {
      deliveryId: 'd1',
      timestampSec: 1700000000,
      secret,
      previousSecrets: ['whsec_b2xkLW9sZC1vbGQtb2xkLW9sZC1vbGQtb2xkLW9sZC0='],
    });
    const sigs = h['webhook-signature'].split(' ');
    expect(sigs).toHaveLength(2);
    expect(sigs[0]).toBe(standardWebhookSignature(body, secret, 'd1', 1700000000));
    expect(h['webhook-id']).toBe('d1');
    expect(h['webhook-timestamp']).toBe('1700000000');
    expect(h['X-Service-Signature-V2']).toBe(signatureV2(body, secret, 1700000000));
    expect(
      signWebhookAttempt(body, { deliveryId: 'd1', timestampSec: 1, secret })['webhook-signature'],
    ).not.toContain(' ');
  });
});

describe('attempt headers in the delivery log', () => {
  it('shortens every signature to 8 characters after its prefix and keeps the other headers', () => {
    const h = signWebhookAttempt(body, {
      deliveryId: 'd1',
      timestampSec: 1700000000,
      secret,
      previousSecrets: ['whsec_b2xkLW9sZC1vbGQtb2xkLW9sZC1vbGQtb2xkLW9sZC0='],
    });
    const shown = headersForLog({ ...h, 'X-Service-Event': 'redemption.completed' });
    expect(shown['X-Service-Signature']).toMatch(/^sha256=[0-9a-f]{8}…$/);
    expect(shown['X-Service-Signature-V2']).toBe(`${h['X-Service-Signature-V2'].slice(0, 15)}…`);
    expect(shown['webhook-signature']).toMatch(/^v1,\S{8}… v1,\S{8}…$/);
    expect(shown['X-Service-Timestamp']).toBe('1700000000');
    expect(shown['X-Service-Event']).toBe('redemption.completed');
    expect(JSON.stringify(shown)).not.toContain(h['X-Service-Signature'].slice(7, 20));
  });
});
