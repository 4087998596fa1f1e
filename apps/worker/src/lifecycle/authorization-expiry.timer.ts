import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MatchingService } from '@app/core';
import { IntervalPass } from '../interval-pass';

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
  private readonly passes = new IntervalPass(this.logger, 'authorization expiry');

  constructor(private readonly matching: MatchingService) {}

  onApplicationBootstrap(): void {
    this.passes.every(INTERVAL_MS, () => this.pass(new Date()));
  }

  /** One pass as of `at` (the tests drive it with their own clock). */
  async pass(at: Date): Promise<{ expired: number; reversed: number }> {
    // A failed pass answers what it did before the failure.
    const total = { expired: 0, reversed: 0 };
    return this.passes.run(async () => {
      for (;;) {
        const r = await this.matching.expireAuthorizations(at, BATCH);
        total.expired += r.expired;
        total.reversed += r.reversed;
        if (r.expired < BATCH) break;
      }
      if (total.expired) this.logger.log(total, 'authorizations expired');
      return total;
    }, total);
  }

  onApplicationShutdown(): void {
    this.passes.stop();
  }
}
