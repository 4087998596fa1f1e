import ipaddr from 'ipaddr.js';

/**
 * SSRF rules for institution webhook URLs (docs/webhooks.md), the pure part: URL shape and the
 * classification of one IP address. The resolving and connecting part lives in libs/core.
 */

export type AddressVerdict =
  { allowed: true; normalized: string } | { allowed: false; normalized: string; reason: string };

/** IPv6 global unicast is 2000::/3; everything outside it (and special ranges inside) is refused. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether an address may be connected to when private URLs are not allowed: public unicast only.
 * Refused: unspecified, loopback, private (RFC 1918), link-local (incl. 169.254.169.254 metadata),
 * carrier-grade NAT 100.64/10, multicast, broadcast, documentation and other reserved ranges,
 * benchmarking, IPv6 unique-local fc00::/7 (incl. fd00:ec2::254), site/link-local, NAT64, 6to4,
 * Teredo, discard, and anything outside 2000::/3. IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as
 * the IPv4 address it carries.
 */
export function classifyAddress(address: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return { allowed: false, normalized: address, reason: 'not an IP address' };
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const normalized = parsed.toString();
  const range = parsed.range();
  if (range !== 'unicast') return { allowed: false, normalized, reason: `${range} address` };
  if (parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) {
    return { allowed: false, normalized, reason: 'not a global unicast IPv6 address' };
  }
  return { allowed: true, normalized };
}

export const WEBHOOK_URL_MAX_LENGTH = 2048;

export type UrlCheck =
  | { ok: true; url: URL; hostname: string; ipLiteral: string | null }
  | { ok: false; message: string };

/**
 * The shape rules, checked before any DNS: an absolute https URL (http only when private URLs are
 * allowed, for development and tests), no credentials, a host, no fragment, at most 2,048
 * characters. An IP-literal host is classified here; a name is resolved and checked by the caller.
 */
export function checkWebhookUrlShape(raw: string, options: { allowPrivate: boolean }): UrlCheck {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, message: 'must be a URL' };
  if (raw.length > WEBHOOK_URL_MAX_LENGTH)
    return { ok: false, message: `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters` };
  if (/[\s\u0000-\u001f\u007f]/.test(raw))
    return { ok: false, message: 'must not contain spaces or control characters' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'must be an absolute https URL' };
  }
  if (url.protocol !== 'https:' && !(options.allowPrivate && url.protocol === 'http:')) {
    return { ok: false, message: 'must be an https URL' };
  }
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) {
    return { ok: false, message: 'must not contain credentials' };
  }
  if (!url.hostname) return { ok: false, message: 'must have a host' };
  if (url.hash || raw.includes('#')) return { ok: false, message: 'must not contain a fragment' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const ipLiteral = ipaddr.isValid(host) && /^[0-9a-f:.]+$/i.test(host) ? host : null;
  if (ipLiteral && !options.allowPrivate) {
    const verdict = classifyAddress(ipLiteral);
    if (!verdict.allowed)
      return { ok: false, message: `must not point at a non-public address (${verdict.reason})` };
  }
  return { ok: true, url, hostname: host, ipLiteral };
}
