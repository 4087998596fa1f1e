import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { WebhookOutbox } from '@app/core';

/**
 * The webhook outbox relay: every WEBHOOK_RELAY_INTERVAL_MS it enqueues deliveries committed but
 * never queued (Redis was down, or a process died between commit and enqueue) and re-enqueues
 * pending steps whose job was lost. Every worker runs it; job ids make concurrent relays harmless.
 */
@Injectable()
export class WebhookRelayService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookRelay');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private lastError = 0;

  constructor(
    private readonly outbox: WebhookOutbox,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.outbox.warmUp();
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => this.schedule(this.config.webhook.relayIntervalMs));
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      const { unqueued } = await this.outbox.relayOnce();
      if (unqueued) this.logger.log({ unqueued }, 'webhook deliveries handed to the queue by the relay');
    } catch (e) {
      const now = Date.now();
      if (now - this.lastError > 10_000) {
        this.lastError = now;
        this.logger.warn(`webhook relay pass failed: ${(e as Error).message}`);
      }
    }
  }

  /** Stops before the outbox's connections close (they close on application shutdown). */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
