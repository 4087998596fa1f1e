import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MatchingService } from '@app/core';

/** How often a worker looks for expired authorizations. */
const INTERVAL_MS = 60_000;
/** Chains per statement; a pass repeats until fewer are left. */
const BATCH = 1_000;

/**
 * The card lifecycle's expiry (docs/transactions.md): an authorization without a clearing within
 * the program's authorization_expiry_days expires, and its redemption (reward_on=authorization)
 * is reversed. Every worker runs the pass on a local timer; the chains are locked with SKIP
 * LOCKED and an expired chain is never taken again, so passes in several workers, or repeated,
 * never reverse twice.
 */
@Injectable()
export class AuthorizationExpiryTimer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuthorizationExpiry');
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(private readonly matching: MatchingService) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.pass(new Date()), INTERVAL_MS);
  }

  /** One pass as of `at` (the tests drive it with their own clock). */
  async pass(at: Date): Promise<{ expired: number; reversed: number }> {
    const total = { expired: 0, reversed: 0 };
    if (this.running) return total;
    this.running = true;
    try {
      for (;;) {
        const r = await this.matching.expireAuthorizations(at, BATCH);
        total.expired += r.expired;
        total.reversed += r.reversed;
        if (r.expired < BATCH) break;
      }
      if (total.expired) this.logger.log(total, 'authorizations expired');
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, 'authorization expiry pass failed');
    } finally {
      this.running = false;
    }
    return total;
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
