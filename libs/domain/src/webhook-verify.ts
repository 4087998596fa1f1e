import { createHmac, timingSafeEqual } from 'crypto';

/**
 * Receiver-side verification of a redemption webhook: what docs/webhooks.md tells institutions to
 * do, and what the test receiver does. Self-contained (node's crypto only) so it can be copied.
 *
 * V2 (the default): `X-Service-Signature-V2` must equal `sha256=` + hex HMAC-SHA256 of
 * `<X-Service-Timestamp>.<raw body>`, and the timestamp must be within `toleranceSec` (default 300 s,
 * the published 5 minutes) of now: a captured request cannot be replayed later.
 * V1 (`scheme: 'v1'`): `X-Service-Signature` over the raw body alone; no replay protection.
 *
 * `secret` may be a list: during a secret rotation a receiver accepts the old and the new one.
 */
export interface VerifyOptions {
  /** Maximum age (and future skew) of X-Service-Timestamp, in seconds. Default 300. */
  toleranceSec?: number;
  /** 'v2' (default) or 'v1'. */
  scheme?: 'v1' | 'v2';
  /** Current Unix time in seconds (tests). */
  nowSec?: number;
}

export type VerifyResult =
  | { ok: true; scheme: 'v1' | 'v2'; timestamp: number | null }
  | {
      ok: false;
      reason:
        | 'missing_signature'
        | 'missing_timestamp'
        | 'bad_timestamp'
        | 'timestamp_out_of_tolerance'
        | 'signature_mismatch';
    };

type HeaderBag =
  Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  }
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  const v = key === undefined ? undefined : bag[key];
  return Array.isArray(v) ? v[0] : v;
}

function sameSignature(expected: string, received: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(received, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function verifyWebhook(
  rawBody: Buffer | string,
  headers: HeaderBag,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): VerifyResult {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  const scheme = options.scheme ?? 'v2';

  if (scheme === 'v1') {
    const sig = header(headers, 'x-service-signature');
    if (!sig) return { ok: false, reason: 'missing_signature' };
    const ok = secrets.some((s) =>
      sameSignature(`sha256=${createHmac('sha256', s).update(body).digest('hex')}`, sig.trim()),
    );
    return ok
      ? { ok: true, scheme: 'v1', timestamp: null }
      : { ok: false, reason: 'signature_mismatch' };
  }

  const sig = header(headers, 'x-service-signature-v2');
  if (!sig) return { ok: false, reason: 'missing_signature' };
  const ts = header(headers, 'x-service-timestamp');
  if (!ts) return { ok: false, reason: 'missing_timestamp' };
  const tsText = ts.trim();
  if (!/^\d{1,12}$/.test(tsText)) return { ok: false, reason: 'bad_timestamp' };
  const timestamp = Number(tsText);
  const now = options.nowSec ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSec ?? 300))
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const ok = secrets.some((s) =>
    sameSignature(
      `sha256=${createHmac('sha256', s).update(`${tsText}.`).update(body).digest('hex')}`,
      sig.trim(),
    ),
  );
  return ok ? { ok: true, scheme: 'v2', timestamp } : { ok: false, reason: 'signature_mismatch' };
}
