import { connect, createServer, Server, Socket } from 'net';
import type { AddressInfo } from 'net';

const DEFAULT_PORTS: Record<string, number> = {
  'redis:': 6379,
  'postgres:': 5432,
  'postgresql:': 5432,
};

/**
 * A TCP proxy in front of a shared server (Redis, PostgreSQL): a suite's processes connect through
 * it, so stopping it (refuse and cut every connection) is an outage for them alone, without
 * stopping the server other suites use and without losing its data. `start()` again ends it, on
 * the same port. `url()` is the upstream URL with the proxy's address.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly upstream: URL) {}

  async start(): Promise<void> {
    const port = Number(this.upstream.port || DEFAULT_PORTS[this.upstream.protocol]);
    this.server = createServer((client) => {
      const up = connect(port, this.upstream.hostname);
      for (const s of [client, up]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => (client.destroy(), up.destroy()));
      }
      client.pipe(up).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The upstream URL (credentials, path and all) pointing at the proxy. */
  url(): string {
    const u = new URL(this.upstream.href);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.href;
  }

  async stop(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}
