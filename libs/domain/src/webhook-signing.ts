import { createHmac, randomBytes } from 'crypto';

/**
 * Redemption webhook signing (SPEC "Events", DESIGN section 5). The HMAC key is the whole
 * signing secret (`whsec_…`) as UTF-8 bytes.
 *
 * - `X-Service-Signature`:    `sha256=` + hex HMAC-SHA256(secret, raw body)
 * - `X-Service-Timestamp`:    Unix time in seconds
 * - `X-Service-Signature-V2`: `sha256=` + hex HMAC-SHA256(secret, `<timestamp>.` + raw body)
 *
 * Both are computed over the exact bytes that go on the wire: callers serialize the body once
 * and pass that buffer here and to the HTTP request.
 */
export const WEBHOOK_HEADERS = {
  signature: 'X-Service-Signature',
  timestamp: 'X-Service-Timestamp',
  signatureV2: 'X-Service-Signature-V2',
  event: 'X-Service-Event',
  deliveryId: 'X-Service-Delivery-Id',
} as const;

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const WEBHOOK_USER_AGENT = 'PaymentLinkedOffers-Webhooks/1.0';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (256 bits). */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function hmacHex(secret: string, ...parts: Buffer[]): string {
  const h = createHmac('sha256', Buffer.from(secret, 'utf8'));
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/** V1: `sha256=<hex>` over the raw body. */
export function signatureV1(rawBody: Buffer, secret: string): string {
  return `sha256=${hmacHex(secret, rawBody)}`;
}

/** V2: `sha256=<hex>` over `<timestamp>.<raw body>`. */
export function signatureV2(rawBody: Buffer, secret: string, timestampSec: number): string {
  return `sha256=${hmacHex(secret, Buffer.from(`${timestampSec}.`, 'utf8'), rawBody)}`;
}

/** The three signature headers for one attempt. */
export function signWebhook(
  rawBody: Buffer,
  secret: string,
  timestampSec: number,
): Record<string, string> {
  return {
    [WEBHOOK_HEADERS.signature]: signatureV1(rawBody, secret),
    [WEBHOOK_HEADERS.timestamp]: String(timestampSec),
    [WEBHOOK_HEADERS.signatureV2]: signatureV2(rawBody, secret, timestampSec),
  };
}

/** SPEC's payload fields, in the order of its table; the body is written in this order. */
export const WEBHOOK_PAYLOAD_FIELDS = [
  'event',
  'redemption_id',
  'institution_id',
  'offer_id',
  'cardholder_token',
  'cardholder_token_masked',
  'institution_payout_amount',
  'occurred_at',
] as const;

/**
 * The request body for a stored payload: SPEC's fields in SPEC's order (PostgreSQL's jsonb does not
 * keep key order), then any further fields in their stored order. Deterministic: every attempt of
 * one delivery sends the same bytes.
 */
export function serializeWebhookPayload(payload: Record<string, unknown>): Buffer {
  const ordered: Record<string, unknown> = {};
  for (const k of WEBHOOK_PAYLOAD_FIELDS) if (k in payload) ordered[k] = payload[k];
  for (const [k, v] of Object.entries(payload)) if (!(k in ordered)) ordered[k] = v;
  return Buffer.from(JSON.stringify(ordered), 'utf8');
}
