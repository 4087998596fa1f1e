import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { throttled } from '@app/queue';
import { WebhookOutbox, WebhookReplays } from '@app/core';

/**
 * Works off bulk replays: once a second, each running replay redelivers its next
 * WEBHOOK_REPLAY_RATE_PER_S failed deliveries and their first attempts are queued (if Redis
 * refuses them, the relay queues them: the rows are the outbox). Every worker runs it; a replay's
 * row lock and its stepped_at keep the pace whatever the number of workers.
 */
@Injectable()
export class WebhookReplayRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookReplay');
  private readonly warn = throttled((m) => this.logger.warn(m));
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly replays: WebhookReplays,
    private readonly outbox: WebhookOutbox,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick().finally(() => (this.running = undefined));
    }, 1_000);
    this.timer.unref();
  }

  async tick(): Promise<number> {
    try {
      const steps = await this.replays.step(this.config.webhook.replayRatePerSecond);
      if (steps.length) await this.outbox.enqueueSteps(steps);
      return steps.length;
    } catch (e) {
      this.warn(`webhook replay step failed: ${(e as Error).message}`);
      return 0;
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
