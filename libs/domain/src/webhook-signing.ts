import { randomBytes } from 'crypto';
import { hmacSha256 } from './hmac';

/**
 * Webhook signing. Two header families, over the same bytes:
 *
 * The service's own (the published interface); the HMAC key is the whole signing secret
 * (`whsec_…`) as UTF-8 bytes:
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

/**
 * Standard Webhooks (so receivers can use its verifier libraries); the HMAC key is the secret's
 * 32 bytes (the base64 after `whsec_`):
 *
 * - `webhook-id`:        the delivery id (as X-Service-Delivery-Id)
 * - `webhook-timestamp`: Unix seconds (as X-Service-Timestamp)
 * - `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<raw body>`; during a
 *   rotation's overlap one per valid secret, space-separated, the newest first
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const WEBHOOK_USER_AGENT = 'PaymentLinkedOffers-Webhooks/1.0';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (256 bits). */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function hmacHex(secret: string, ...parts: Buffer[]): string {
  return hmacSha256(secret, ...parts).toString('hex');
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

/** The key Standard Webhooks signs with: the bytes the secret's base64 part encodes. */
export function standardWebhookKey(secret: string): Buffer {
  const b64 = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  return Buffer.from(b64, 'base64');
}

/** One Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`. */
export function standardWebhookSignature(
  rawBody: Buffer,
  secret: string,
  id: string,
  timestampSec: number,
): string {
  const mac = hmacSha256(standardWebhookKey(secret), `${id}.${timestampSec}.`, rawBody).toString(
    'base64',
  );
  return `v1,${mac}`;
}

/**
 * Every signature header of one attempt: the service's own family with the current secret, and
 * the Standard Webhooks family with the current secret and, during a rotation's overlap, the
 * previous ones too.
 */
export function signWebhookAttempt(
  rawBody: Buffer,
  input: { deliveryId: string; timestampSec: number; secret: string; previousSecrets?: string[] },
): Record<string, string> {
  const all = [input.secret, ...(input.previousSecrets ?? [])];
  return {
    ...signWebhook(rawBody, input.secret, input.timestampSec),
    [STANDARD_WEBHOOK_HEADERS.id]: input.deliveryId,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(input.timestampSec),
    [STANDARD_WEBHOOK_HEADERS.signature]: all
      .map((s) => standardWebhookSignature(rawBody, s, input.deliveryId, input.timestampSec))
      .join(' '),
  };
}

const SIGNATURE_HEADERS = new Set(
  [WEBHOOK_HEADERS.signature, WEBHOOK_HEADERS.signatureV2, STANDARD_WEBHOOK_HEADERS.signature].map(
    (h) => h.toLowerCase(),
  ),
);

/**
 * The headers of an attempt as the delivery log shows them: signatures shortened to their first
 * 8 characters (enough to tell two apart, useless to forge or replay with), custom header values
 * hidden.
 */
export function headersForLog(
  headers: Record<string, string>,
  /** The institution's custom headers: their values are never shown (they may be credentials). */
  hidden: readonly string[] = [],
): Record<string, string> {
  const secret = new Set(hidden.map((h) => h.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (secret.has(name.toLowerCase())) {
      out[name] = '[hidden]';
      continue;
    }
    out[name] = SIGNATURE_HEADERS.has(name.toLowerCase())
      ? value
          .split(' ')
          .map((sig) => {
            const cut = sig.indexOf(sig.startsWith('sha256=') ? '=' : ',') + 1;
            return `${sig.slice(0, cut + 8)}…`;
          })
          .join(' ')
      : value;
  }
  return out;
}

/** The published payload fields, in the order docs/webhooks.md lists them; the body is written in this order. */
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
 * The fields of the redemption events after the published ones, in the order they were added
 * (docs/webhooks.md): `clawback_amount` (redemption.reversed), then what reconciles a redemption
 * alone, then the reversal's cause (redemption.reversed). An event carries those it has.
 */
export const REDEMPTION_EVENT_ADDED_FIELDS = [
  'clawback_amount',
  'transaction_ref',
  'purchase_amount',
  'merchant_funded_amount',
  'goal_round',
  'currency',
  'reversal_reason',
  'reversal_transaction_ref',
] as const;

const REDEMPTION_BODY_ORDER = [...WEBHOOK_PAYLOAD_FIELDS, ...REDEMPTION_EVENT_ADDED_FIELDS];

/**
 * The wire order of each event's body, by its `event`: a redemption event's published fields then
 * the added ones; another event its own list (webhook-payloads.ts builds it in this order). An
 * event missing here is written in the published fields' order, then the rest.
 */
export const WEBHOOK_BODY_ORDER: Readonly<Record<string, readonly string[]>> = {
  'redemption.completed': REDEMPTION_BODY_ORDER,
  'redemption.reversed': REDEMPTION_BODY_ORDER,
  'redemption.settled': REDEMPTION_BODY_ORDER,
  'statement.closed': [
    'event',
    'statement_id',
    'institution_id',
    'granularity',
    'period_start',
    'period_end',
    'time_zone',
    'currency',
    'checksum',
    'pending_opening',
    'earned',
    'reversed',
    'settled',
    'pending_closing',
    'clawed_back',
    'net_payout',
    'movement_count',
    'lines_path',
    'occurred_at',
  ],
  'webhook.test': ['event', 'institution_id', 'occurred_at', 'message'],
};

/**
 * The request body for a stored payload: its fields in its event's order (WEBHOOK_BODY_ORDER;
 * PostgreSQL's jsonb does not keep key order), then any further fields in their stored order.
 * Deterministic: every attempt of one delivery sends the same bytes.
 */
export function serializeWebhookPayload(payload: Record<string, unknown>): Buffer {
  const ordered: Record<string, unknown> = {};
  const order =
    typeof payload.event === 'string' && Object.hasOwn(WEBHOOK_BODY_ORDER, payload.event)
      ? WEBHOOK_BODY_ORDER[payload.event]
      : WEBHOOK_PAYLOAD_FIELDS;
  for (const k of order) if (k in payload) ordered[k] = payload[k];
  for (const [k, v] of Object.entries(payload)) if (!(k in ordered)) ordered[k] = v;
  return Buffer.from(JSON.stringify(ordered), 'utf8');
}
