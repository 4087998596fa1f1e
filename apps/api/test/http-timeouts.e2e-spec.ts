import type { AddressInfo } from 'net';
import { connect, Socket } from 'net';
import { eventually, startApi, TestApi } from '@app/testing';

/** Idle and slow connections are closed (HTTP_*_TIMEOUT_MS), so silent sockets cannot pile up. */
describe('HTTP server timeouts', () => {
  let api: TestApi;
  let port: number;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    Object.assign(process.env, {
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
    });
    try {
      api = await startApi();
    } finally {
      delete process.env.HTTP_HEADERS_TIMEOUT_MS;
      delete process.env.HTTP_REQUEST_TIMEOUT_MS;
      delete process.env.HTTP_KEEP_ALIVE_TIMEOUT_MS;
    }
    await api.app.listen(0, '127.0.0.1');
    port = (api.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await api.close();
  });

  /** Opens n connections; each records when it was closed by the server. */
  async function open(n: number, first?: string): Promise<{ closedAt: (number | null)[] }> {
    const closedAt: (number | null)[] = Array.from({ length: n }, () => null);
    await Promise.all(
      closedAt.map(
        (_, i) =>
          new Promise<void>((resolve, reject) => {
            const s = connect(port, '127.0.0.1', () => {
              if (first) s.write(first);
              resolve();
            });
            sockets.push(s);
            s.on('error', reject);
            s.on('close', () => (closedAt[i] = Date.now()));
            s.resume();
          }),
      ),
    );
    return { closedAt };
  }

  it('closes 50 silent connections within 3 s at a 1 s headers timeout', async () => {
    const start = Date.now();
    const { closedAt } = await open(50);
    await eventually(
      async () => closedAt.every((t) => t !== null),
      '50 silent connections closed',
      3_000,
    );
    expect(Math.max(...(closedAt as number[])) - start).toBeLessThan(3_000);
  });

  it('closes connections whose headers never complete', async () => {
    const start = Date.now();
    const { closedAt } = await open(10, 'GET /health HTTP/1.1\r\nHost: x\r\n');
    await eventually(
      async () => closedAt.every((t) => t !== null),
      'slow-header connections closed',
      3_000,
    );
    expect(Math.max(...(closedAt as number[])) - start).toBeLessThan(3_000);
  });

  it('answers a complete request, then closes the idle keep-alive connection', async () => {
    const s = connect(port, '127.0.0.1');
    sockets.push(s);
    let text = '';
    let closed = false;
    s.on('data', (d: Buffer) => (text += d.toString()));
    s.on('close', () => (closed = true));
    s.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await eventually(async () => text.includes('"status":"ok"'), 'the health answer', 3_000);
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toMatch(/Keep-Alive: timeout=1/i);
    await eventually(async () => closed, 'the idle keep-alive connection closed', 3_000);
  });
});
