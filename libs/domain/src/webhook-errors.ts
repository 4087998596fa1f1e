/**
 * Error classes of a webhook attempt, as the attempt log shows them (docs/webhooks.md), and the
 * mapping from Node's network error codes.
 */
export const WEBHOOK_ERROR_CLASSES = [
  'timeout',
  'dns',
  'connection_refused',
  'tls',
  'blocked_address',
  'http_status',
  'network',
] as const;
export type WebhookErrorClass = (typeof WEBHOOK_ERROR_CLASSES)[number];

const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EAI_NODATA',
  'ENODATA',
  'ESERVFAIL',
  'ENONAME',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
  'EPROTO',
]);

/** Classifies a thrown network error (not an HTTP status). */
export function classifyNetworkError(
  err: { code?: string; name?: string; message?: string } | null | undefined,
): WebhookErrorClass {
  const code = err?.code ?? '';
  if (code === 'BLOCKED_ADDRESS') return 'blocked_address';
  if (code === 'WEBHOOK_TIMEOUT' || TIMEOUT_CODES.has(code) || err?.name === 'TimeoutError')
    return 'timeout';
  if (DNS_CODES.has(code)) return 'dns';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (
    TLS_CODES.has(code) ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_OSSL_')
  )
    return 'tls';
  if (/\b(ssl|tls|certificate)\b/i.test(err?.message ?? '')) return 'tls';
  return 'network';
}

/** A short, log-safe description of a network error: its code and message, no stack. */
export function describeNetworkError(
  err: { code?: string; message?: string } | null | undefined,
): string {
  const code = err?.code ? `${err.code}: ` : '';
  return `${code}${err?.message ?? 'unknown error'}`.slice(0, 500);
}
