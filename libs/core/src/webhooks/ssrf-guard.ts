import { lookup as dnsLookup, LookupAddress } from 'dns';
import { isIP } from 'net';
import { checkWebhookUrlShape, classifyAddress } from '@app/domain';

/**
 * SSRF guard, the I/O half (docs/webhooks.md). A webhook URL is checked when it is saved and again
 * at every connection: the connection's `lookup` resolves the name, refuses it unless every address
 * is public unicast, and hands the socket exactly the addresses it checked, so a DNS answer that
 * changes between the check and the connect (rebinding) cannot reach an internal address.
 */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addrs) =>
      err ? reject(err) : resolve(addrs),
    ),
  );

export class BlockedAddressError extends Error {
  readonly code = 'BLOCKED_ADDRESS';
  constructor(message: string) {
    super(message);
    this.name = 'BlockedAddressError';
  }
}

/** Resolves and checks a name; every address must be allowed. Throws BlockedAddressError or the DNS error. */
export async function resolveChecked(
  hostname: string,
  options: { allowPrivate: boolean; resolver?: Resolver },
): Promise<LookupAddress[]> {
  const literal = isIP(hostname);
  const addrs = literal
    ? [{ address: hostname, family: literal }]
    : await (options.resolver ?? systemResolver)(hostname);
  if (!addrs.length)
    throw Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENOTFOUND' });
  if (options.allowPrivate) return addrs;
  for (const a of addrs) {
    const verdict = classifyAddress(a.address);
    if (!verdict.allowed)
      throw new BlockedAddressError(
        `${hostname} resolves to ${verdict.normalized} (${verdict.reason}); only public addresses are allowed`,
      );
  }
  return addrs;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls/http(s) connections that only ever yields checked addresses. Handles both
 * call shapes Node uses (single address, and `all: true` for happy-eyeballs family selection).
 */
export function guardedLookup(options: { allowPrivate: boolean; resolver?: Resolver }) {
  return (
    hostname: string,
    opts: { all?: boolean; family?: number } | number | undefined,
    callback: LookupCallback,
  ): void => {
    const all = typeof opts === 'object' && opts !== null && opts.all === true;
    const family = typeof opts === 'number' ? opts : (opts?.family ?? 0);
    resolveChecked(hostname, options).then(
      (addrs) => {
        const usable =
          family === 4 || family === 6 ? addrs.filter((a) => a.family === family) : addrs;
        if (!usable.length)
          return callback(
            Object.assign(new Error(`${hostname} has no IPv${family} address`), {
              code: 'ENOTFOUND',
            }),
            '',
            0,
          );
        if (all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

export type UrlVerdict = { ok: true; url: URL } | { ok: false; message: string };

/**
 * The save-time check of a webhook URL: the shape rules, then (unless private URLs are allowed)
 * the name is resolved and every address must be public. A name that does not resolve is refused
 * too: the portal user learns it now rather than from failed deliveries.
 */
export async function checkWebhookUrl(
  raw: string,
  options: { allowPrivate: boolean; resolver?: Resolver },
): Promise<UrlVerdict> {
  const shape = checkWebhookUrlShape(raw, options);
  if (!shape.ok) return shape;
  if (options.allowPrivate || shape.ipLiteral) return { ok: true, url: shape.url };
  try {
    await resolveChecked(shape.hostname, options);
    return { ok: true, url: shape.url };
  } catch (e) {
    if (e instanceof BlockedAddressError)
      return { ok: false, message: `must not point at a non-public address (${e.message})` };
    return { ok: false, message: `host ${shape.hostname} could not be resolved` };
  }
}
