import { Client } from 'pg';

export interface PgListenerOptions {
  databaseUrl: string;
  /** A channel name the code chooses (LISTEN takes no parameter). */
  channel: string;
  onNotification: (payload: string) => void;
  /** Listening (again): notifications from here on arrive; any sent while down were lost. */
  onListening: () => void;
  /** Not listening: the connection was lost or could not be made (`err` for the latter). */
  onLost: (err?: Error) => void;
}

/**
 * A LISTEN connection of its own on one channel (outside the pool: it stays open), reconnecting
 * two seconds after a loss until stop(). The one place the apps LISTEN: the webhook relay
 * (`webhook_outbox`) and the api-key cache (`auth_changed`).
 */
export class PgListener {
  private client?: Client;
  private stopped = false;
  private reconnectTimer?: NodeJS.Timeout;

  constructor(private readonly opts: PgListenerOptions) {}

  get listening(): boolean {
    return !!this.client;
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.opts.databaseUrl });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (n) => this.opts.onNotification(n.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.opts.channel}`);
      this.client = client;
      this.opts.onListening();
    } catch (e) {
      this.lost(client, e as Error);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }

  private lost(client: Client, err?: Error): void {
    if (this.client === client || !this.client) {
      this.client = undefined;
      this.opts.onLost(err);
    }
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    if (this.stopped || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.start();
    }, 2_000);
    this.reconnectTimer.unref();
  }
}
