import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { addDays } from '@app/domain';
import { CloseResult, StatementCloser } from '@app/core';
import { IntervalPass } from '../interval-pass';

/** How often a worker closes the days that have ended (a day closes within this after its end). */
const INTERVAL_MS = 5 * 60_000;

/**
 * Closes each book's ended days (and months) shortly after they end, in the book's time zone.
 * Every worker runs the pass on a local timer; closing holds the book FOR UPDATE and skips days
 * already closed, so each period closes once whichever worker gets there first.
 */
@Injectable()
export class StatementCloseTimer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('StatementClose');
  private readonly passes = new IntervalPass(this.logger, 'statement close');

  constructor(private readonly closer: StatementCloser) {}

  onApplicationBootstrap(): void {
    this.passes.every(INTERVAL_MS, () => this.pass());
  }

  /** One pass: every book through the day before its current day. */
  pass(): Promise<CloseResult> {
    return this.passes.run(() => this.closer.close((b) => addDays(b.today, -1)), {
      closed: 0,
      books: 0,
    });
  }

  onApplicationShutdown(): void {
    this.passes.stop();
  }
}
