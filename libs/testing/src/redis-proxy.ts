import { connect, createServer, Server, Socket } from 'net';
import type { AddressInfo } from 'net';

/**
 * A TCP proxy in front of the shared Redis: a suite's api and worker connect through it, so
 * stopping it (refuse and cut every connection) is a Redis outage for them alone, without
 * stopping the Redis other suites use and without losing its data. `start()` again ends it.
 */
export class RedisProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly upstream: URL) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const up = connect(Number(this.upstream.port || 6379), this.upstream.hostname);
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

  async stop(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}
