import { Logger } from '@nestjs/common';

/**
 * A worker pass on a local interval: no Redis involved (the relays must run precisely when Redis
 * has been unreliable), one pass at a time in this process. A tick, or a call, while a pass is
 * running does nothing; a failed pass is logged and the next tick tries again. What keeps passes
 * in several workers apart is the pass's own (advisory locks, SKIP LOCKED, job ids).
 */
export class IntervalPass {
  private timer?: NodeJS.Timeout;
  private running = false;

  /** `name` names the pass in the failure's log line (`<name> pass failed`). */
  constructor(
    private readonly logger: Logger,
    private readonly name: string,
  ) {}

  /** Calls `tick` every `everyMs` until stop(). */
  every(everyMs: number, tick: () => Promise<unknown>): void {
    this.timer = setInterval(() => void tick(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Runs `pass` unless one is running; answers `otherwise` when it did not run or failed. */
  async run<T>(pass: () => Promise<T>, otherwise: T): Promise<T> {
    if (this.running) return otherwise;
    this.running = true;
    try {
      return await pass();
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, `${this.name} pass failed`);
      return otherwise;
    } finally {
      this.running = false;
    }
  }
}
