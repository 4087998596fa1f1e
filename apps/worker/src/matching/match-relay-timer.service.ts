import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { MatchRelayService } from '@app/core';
import { IntervalPass } from '../interval-pass';

/**
 * Runs the matching relay on a local timer: it must work precisely when Redis has been
 * unreliable, so it does not depend on Redis to be triggered (a PostgreSQL advisory lock keeps it
 * to one worker at a time).
 */
@Injectable()
export class MatchRelayTimer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly pass = new IntervalPass(new Logger('MatchRelayTimer'), 'matching relay');

  constructor(
    private readonly relay: MatchRelayService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.pass.every(this.config.matching.relayIntervalMs, () =>
      this.pass.run(() => this.relay.runOnce(), 0),
    );
  }

  onApplicationShutdown(): void {
    this.pass.stop();
  }
}
