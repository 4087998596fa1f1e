import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'http';
import type { AddressInfo } from 'net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received: signatures are verified over these. */
  rawBody: Buffer;
  receivedAt: number;
}

export type Responder = (
  req: ReceivedRequest,
  n: number,
  res: ServerResponse,
) => void | Promise<void>;

/**
 * A real HTTP server on 127.0.0.1 for webhook tests. By default answers 200; `respondWith`
 * scripts the answers (status codes, delays, redirects) per request number.
 */
export class WebhookReceiver {
  readonly received: ReceivedRequest[] = [];
  private server?: Server;
  private responder: Responder = (_r, _n, res) => void res.writeHead(200).end('ok');
  private waiters: { count: number; resolve: () => void }[] = [];

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '/',
          headers: req.headers,
          rawBody: Buffer.concat(chunks),
          receivedAt: Date.now(),
        };
        this.received.push(r);
        void Promise.resolve(this.responder(r, this.received.length, res)).catch(() =>
          res.destroy(),
        );
        this.waiters = this.waiters.filter((w) =>
          this.received.length >= w.count ? (w.resolve(), false) : true,
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}/hooks`;
  }

  respondWith(responder: Responder): void {
    this.responder = responder;
  }

  /** Resolves once `count` requests have arrived, or rejects after timeoutMs. */
  waitFor(count: number, timeoutMs = 15_000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`receiver got ${this.received.length} of ${count} requests`)),
        timeoutMs,
      );
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
