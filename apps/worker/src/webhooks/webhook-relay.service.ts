import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { WebhookOutbox } from '@app/core';
import { PgListener } from '@app/db';

const CHANNEL = 'webhook_outbox';

/**
 * The webhook outbox relay. New delivery rows notify channel `webhook_outbox` when their
 * transaction commits (a trigger, see migration 1763700003100); the relay listens and hands them to
 * the queue at once. Every WEBHOOK_RELAY_INTERVAL_MS it also makes a full pass: deliveries
 * committed but never queued (Redis was down, a notification was missed, a process died between
 * commit and enqueue) and pending steps whose job was lost. Every worker runs it; job ids make
 * concurrent relays harmless. Passes never overlap: a notification during a pass runs one more.
 */
@Injectable()
export class WebhookRelayService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookRelay');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  private lastError = 0;
  /** A LISTEN connection of its own; reconnects after a loss (the interval pass covers the gap). */
  private readonly listener: PgListener;

  constructor(
    private readonly outbox: WebhookOutbox,
    private readonly config: AppConfig,
  ) {
    this.listener = new PgListener({
      databaseUrl: config.databaseDirectUrl, // LISTEN needs a session
      channel: CHANNEL,
      onNotification: () => this.kick(),
      onListening: () => this.kick(), // rows committed while not listening
      onLost: (err) => {
        if (err)
          this.warn(
            `webhook relay cannot listen for new deliveries (${err.message}); relying on the interval`,
          );
      },
    });
  }

  onApplicationBootstrap(): void {
    this.outbox.warmUp();
    void this.listener.start();
    this.schedule(0);
  }

  /** New deliveries were committed: a pass now (or right after the one running). */
  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.run(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(250), ms);
    this.timer.unref();
  }

  /** One pass; `freshGraceMs` 0 when notified (the committing code is done with its rows). */
  private run(freshGraceMs: number): void {
    this.again = false;
    this.running = this.tick(freshGraceMs).finally(() => {
      this.running = undefined;
      if (this.again) this.kick();
      else this.schedule(this.config.webhook.relayIntervalMs);
    });
  }

  private async tick(freshGraceMs: number): Promise<void> {
    try {
      const { unqueued } = await this.outbox.relayOnce({ freshGraceMs });
      if (unqueued)
        this.logger.debug({ unqueued }, 'webhook deliveries handed to the queue by the relay');
    } catch (e) {
      this.warn(`webhook relay pass failed: ${(e as Error).message}`);
    }
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastError > 10_000) {
      this.lastError = now;
      this.logger.warn(message);
    }
  }

  /** Stops before the outbox's connections close (they close on application shutdown). */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.listener.stop();
    await this.running;
  }
}
