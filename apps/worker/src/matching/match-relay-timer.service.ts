import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { MatchRelayService } from '@app/core';

/**
 * Runs the matching relay on a local timer: it must work precisely when Redis has been
 * unreliable, so it does not depend on Redis to be triggered (a PostgreSQL advisory lock keeps it
 * to one worker at a time).
 */
@Injectable()
export class MatchRelayTimer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MatchRelayTimer');
  private relayTimer?: NodeJS.Timeout;
  private relayRunning = false;

  constructor(
    private readonly relay: MatchRelayService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.relayTimer = setInterval(
      () => void this.relayPass(),
      this.config.matching.relayIntervalMs,
    );
  }

  private async relayPass(): Promise<void> {
    if (this.relayRunning) return;
    this.relayRunning = true;
    try {
      await this.relay.runOnce();
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, 'matching relay pass failed');
    } finally {
      this.relayRunning = false;
    }
  }

  onApplicationShutdown(): void {
    clearInterval(this.relayTimer);
  }
}
