import type { LookupAddress } from 'dns';
import {
  BlockedAddressError,
  checkWebhookUrl,
  guardedLookup,
  resolveChecked,
  Resolver,
} from './ssrf-guard';

/** A resolver that answers from a table, as DNS would, and counts its calls. */
function fakeDns(table: Record<string, LookupAddress[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (!answer)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return Object.assign(resolver, { calls });
}

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

const dns = fakeDns({
  'hooks.example.com': [v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')],
  'v4only.example.com': [v4('93.184.216.34')],
  'internal.example.com': [v4('10.0.0.5')],
  'rebind.example.com': [v4('93.184.216.34'), v4('127.0.0.1')],
  'metadata.example.com': [v4('169.254.169.254')],
  'empty.example.com': [],
});
const strict = { allowPrivate: false, resolver: dns };
const lenient = { allowPrivate: true, resolver: dns };

/** Calls a guarded lookup the way Node's net module does and returns what it was given. */
function lookupVia(
  hostname: string,
  opts: { all?: boolean; family?: number } | number | undefined,
  options = strict,
): Promise<{
  err: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family?: number;
}> {
  return new Promise((resolve) =>
    guardedLookup(options)(hostname, opts, (err, address, family) =>
      resolve({ err, address, family }),
    ),
  );
}

describe('SSRF guard: a webhook connection only ever reaches public addresses', () => {
  describe('resolveChecked', () => {
    it('a name whose every address is public resolves to all of them', async () => {
      await expect(resolveChecked('hooks.example.com', strict)).resolves.toEqual([
        v4('93.184.216.34'),
        v6('2606:2800:220:1:248:1893:25c8:1946'),
      ]);
    });

    it('one private address among public ones refuses the name (a rebinding answer cannot slip through)', async () => {
      await expect(resolveChecked('rebind.example.com', strict)).rejects.toBeInstanceOf(
        BlockedAddressError,
      );
      await expect(resolveChecked('rebind.example.com', strict)).rejects.toThrow(
        /resolves to 127\.0\.0\.1/,
      );
    });

    it('private, loopback and link-local (cloud metadata) addresses are refused, literal or resolved', async () => {
      for (const host of [
        'internal.example.com',
        'metadata.example.com',
        '10.1.2.3',
        '127.0.0.1',
        '::1',
      ])
        await expect(resolveChecked(host, strict)).rejects.toMatchObject({
          code: 'BLOCKED_ADDRESS',
        });
    });

    it('an IP literal is checked without asking DNS', async () => {
      const before = dns.calls.length;
      await expect(resolveChecked('93.184.216.34', strict)).resolves.toEqual([v4('93.184.216.34')]);
      expect(dns.calls.length).toBe(before);
    });

    it('with private URLs allowed (development) every address is accepted', async () => {
      await expect(resolveChecked('internal.example.com', lenient)).resolves.toEqual([
        v4('10.0.0.5'),
      ]);
    });

    it('a name without addresses is ENOTFOUND; a DNS error is passed on as it is', async () => {
      await expect(resolveChecked('empty.example.com', strict)).rejects.toMatchObject({
        code: 'ENOTFOUND',
      });
      await expect(resolveChecked('nowhere.example.com', strict)).rejects.toMatchObject({
        code: 'ENOTFOUND',
      });
    });
  });

  describe('guardedLookup (the connection-time check)', () => {
    it('single-address form: the first checked address and its family', async () => {
      expect(await lookupVia('hooks.example.com', {})).toEqual({
        err: null,
        address: '93.184.216.34',
        family: 4,
      });
    });

    it('all: true (happy eyeballs): every checked address', async () => {
      expect(await lookupVia('hooks.example.com', { all: true })).toEqual({
        err: null,
        address: [v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')],
        family: undefined,
      });
    });

    it('a requested family keeps only its addresses; none left is ENOTFOUND', async () => {
      expect((await lookupVia('hooks.example.com', 6)).address).toBe(
        '2606:2800:220:1:248:1893:25c8:1946',
      );
      expect((await lookupVia('hooks.example.com', { family: 6, all: true })).address).toEqual([
        v6('2606:2800:220:1:248:1893:25c8:1946'),
      ]);
      const none = await lookupVia('v4only.example.com', { family: 6 });
      expect(none.err).toMatchObject({ code: 'ENOTFOUND' });
    });

    it('a blocked name reaches the socket as an error, never as an address', async () => {
      const r = await lookupVia('rebind.example.com', { all: true });
      expect(r.err).toBeInstanceOf(BlockedAddressError);
      expect(r.address).toBe('');
    });
  });

  describe('checkWebhookUrl (the save-time check)', () => {
    it('an https URL of a public name is accepted', async () => {
      const v = await checkWebhookUrl('https://hooks.example.com/in?x=1', strict);
      expect(v.ok && v.url.href).toBe('https://hooks.example.com/in?x=1');
    });

    it('the shape rules come first (no DNS asked for a URL that is not https)', async () => {
      const before = dns.calls.length;
      expect(await checkWebhookUrl('http://hooks.example.com/', strict)).toEqual({
        ok: false,
        message: 'must be an https URL',
      });
      expect(dns.calls.length).toBe(before);
    });

    it('a name resolving to a non-public address is refused with the reason', async () => {
      const v = await checkWebhookUrl('https://internal.example.com/', strict);
      expect(v.ok).toBe(false);
      expect(!v.ok && v.message).toMatch(/^must not point at a non-public address \(/);
    });

    it('a name that does not resolve is refused now, not at the first delivery', async () => {
      expect(await checkWebhookUrl('https://nowhere.example.com/', strict)).toEqual({
        ok: false,
        message: 'host nowhere.example.com could not be resolved',
      });
    });

    it('with private URLs allowed, neither the address nor the resolution is checked', async () => {
      const before = dns.calls.length;
      const v = await checkWebhookUrl('http://internal.example.com:8080/hook', lenient);
      expect(v.ok).toBe(true);
      expect(dns.calls.length).toBe(before);
    });
  });
});
