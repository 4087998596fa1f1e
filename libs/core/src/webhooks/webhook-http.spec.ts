import { createServer, Server } from 'http';
import type { AddressInfo } from 'net';
import { checkWebhookUrl, guardedLookup, Resolver } from './ssrf-guard';
import { RESPONSE_EXCERPT_BYTES, WebhookHttpClient } from './webhook-http';

/** A stub DNS: names → addresses, counting lookups. */
function stubDns(map: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (host: string) => {
    calls.push(host);
    const addrs = map[host];
    if (!addrs)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

describe('SSRF guard', () => {
  it('refuses at save time: private literals, names resolving to private addresses, http, credentials', async () => {
    const resolver = stubDns({
      'internal.bank.test': ['10.1.2.3'],
      'mixed.bank.test': ['93.184.216.34', '127.0.0.1'],
      'hooks.bank.test': ['93.184.216.34'],
    });
    const strict = { allowPrivate: false, resolver };
    for (const url of [
      'https://internal.bank.test/x',
      'https://mixed.bank.test/x',
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'http://hooks.bank.test/x',
      'https://a:b@hooks.bank.test/x',
    ]) {
      expect({ url, ok: (await checkWebhookUrl(url, strict)).ok }).toEqual({ url, ok: false });
    }
    expect(
      (await checkWebhookUrl('https://nowhere.bank.test/x', strict)) as { message: string },
    ).toMatchObject({ ok: false, message: expect.stringContaining('could not be resolved') });
    expect((await checkWebhookUrl('https://hooks.bank.test/x', strict)).ok).toBe(true);
  });

  it('the connection lookup yields only the addresses it checked, in both call shapes', async () => {
    const resolver = stubDns({
      'hooks.bank.test': ['93.184.216.34', '2606:4700::1111'],
      'rebind.bank.test': ['127.0.0.1'],
    });
    const lookup = guardedLookup({ allowPrivate: false, resolver });
    const one = await new Promise((resolve) =>
      lookup('hooks.bank.test', { family: 0 }, (err, address, family) =>
        resolve({ err, address, family }),
      ),
    );
    expect(one).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    const all = await new Promise((resolve) =>
      lookup('hooks.bank.test', { all: true }, (err, address) => resolve({ err, address })),
    );
    expect(all).toEqual({
      err: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
    });
    const v6 = await new Promise((resolve) =>
      lookup('hooks.bank.test', 6, (err, address) => resolve(address)),
    );
    expect(v6).toBe('2606:4700::1111');
    const blocked = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      lookup('rebind.bank.test', {}, (err) => resolve(err)),
    );
    expect(blocked?.code).toBe('BLOCKED_ADDRESS');
  });
});

describe('WebhookHttpClient', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  let handler: (req: import('http').IncomingMessage, res: import('http').ServerResponse) => void;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () => handler(req, res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const body = Buffer.from('{"a":1}');

  it('connects to a name only through the guard: a name resolving to loopback is never reached', async () => {
    const client = new WebhookHttpClient({
      allowPrivate: false,
      timeoutMs: 2000,
      resolver: stubDns({ 'rebind.bank.test': ['127.0.0.1'] }),
    });
    handler = (_req, res) => res.writeHead(200).end();
    const before = hits;
    const r = await client.post(`https://rebind.bank.test:${port}/hooks`, body, {});
    expect(r).toMatchObject({ ok: false, errorClass: 'blocked_address', httpStatus: null });
    expect(hits).toBe(before);
    const literal = await client.post(`https://127.0.0.1:${port}/hooks`, body, {});
    expect(literal).toMatchObject({ ok: false, errorClass: 'blocked_address' });
    client.close();
  });

  it('2xx is success; a redirect is a failure and is not followed; the excerpt is capped at 4 KiB', async () => {
    const client = new WebhookHttpClient({ allowPrivate: true, timeoutMs: 2000 });
    handler = (_req, res) => res.writeHead(204).end();
    expect(await client.post(`http://127.0.0.1:${port}/ok`, body, {})).toMatchObject({
      ok: true,
      httpStatus: 204,
      errorClass: null,
    });
    handler = (req, res) =>
      req.url === '/moved'
        ? res.writeHead(302, { Location: '/elsewhere' }).end()
        : res.writeHead(200).end();
    const before = hits;
    const redirected = await client.post(`http://127.0.0.1:${port}/moved`, body, {});
    expect(redirected).toMatchObject({ ok: false, httpStatus: 302, errorClass: 'http_status' });
    expect(redirected!.errorMessage).toContain('redirect not followed');
    expect(hits).toBe(before + 1);
    handler = (_req, res) => res.writeHead(500).end('x'.repeat(20_000));
    const big = await client.post(`http://127.0.0.1:${port}/big`, body, {});
    expect(big!.responseExcerpt).toHaveLength(RESPONSE_EXCERPT_BYTES);
    handler = (_req, res) => res.writeHead(429, { 'Retry-After': '7' }).end();
    expect(await client.post(`http://127.0.0.1:${port}/slow-down`, body, {})).toMatchObject({
      ok: false,
      httpStatus: 429,
      retryAfterMs: 7000,
    });
    client.close();
  });

  it('times out a receiver that does not answer in time; refused connections are classed', async () => {
    const client = new WebhookHttpClient({ allowPrivate: true, timeoutMs: 200 });
    handler = (_req, res) => setTimeout(() => res.writeHead(200).end(), 600);
    const slow = await client.post(`http://127.0.0.1:${port}/slow`, body, {});
    expect(slow).toMatchObject({ ok: false, errorClass: 'timeout', httpStatus: null });
    expect(slow!.durationMs).toBeGreaterThanOrEqual(190);
    expect(slow!.durationMs).toBeLessThan(1000);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await client.post(`http://127.0.0.1:${closedPort}/x`, body, {})).toMatchObject({
      ok: false,
      errorClass: 'connection_refused',
    });
    client.close();
  });
  it('the timeout measures the receiver, not the wait for a free connection in our agent', async () => {
    // One connection at a time: the third post waits for two answers (2 × 400 ms) before it is
    // sent; each answer takes 400 ms, well within the 1 s timeout.
    const client = new WebhookHttpClient({ allowPrivate: true, timeoutMs: 1000, maxSockets: 1 });
    handler = (_req, res) => setTimeout(() => res.writeHead(200).end(), 400);
    const results = await Promise.all(
      [1, 2, 3].map(() => client.post(`http://127.0.0.1:${port}/queued`, body, {})),
    );
    expect(results.map((r) => r && { ok: r.ok, errorClass: r.errorClass })).toEqual(
      Array(3).fill({ ok: true, errorClass: null }),
    );
    for (const r of results) expect(r!.durationMs).toBeLessThan(1000);
    client.close();
  });

  it('sends nothing when no connection is free within the wait it was given', async () => {
    const client = new WebhookHttpClient({ allowPrivate: true, timeoutMs: 2000, maxSockets: 1 });
    handler = (_req, res) => setTimeout(() => res.writeHead(200).end(), 300);
    const url = `http://127.0.0.1:${port}/busy`;
    const before = hits;
    const [first, second] = await Promise.all([
      client.post(url, body, {}),
      client.post(url, body, {}, undefined, 100),
    ]);
    expect(first).toMatchObject({ ok: true });
    expect(second).toBeNull();
    // The connection is free again: the next post goes out, the abandoned one never does.
    expect(await client.post(url, body, {})).toMatchObject({ ok: true });
    expect(hits).toBe(before + 2);
    client.close();
  });
});
