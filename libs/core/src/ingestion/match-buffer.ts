import { MATCH_CHUNK } from '@app/queue';

export type FlushFn = (ids: string[], requestIds: string[]) => Promise<unknown>;

/**
 * Coalesces the ids committed by many small writes (group-committed single posts arrive a few at
 * a time) into matching jobs of up to MATCH_CHUNK ids: a job per chunk, not per request. A full
 * chunk leaves at once. Otherwise the next job may leave `perIdMs` per id the previous job
 * carried after it, at most `delayMs` after it: ids that arrive when that time has passed leave
 * at once, ids that arrive sooner wait for it together with whatever comes meanwhile. So a quiet
 * api (a purchase now and then: one-id jobs, 10 ms apart or more) sends each purchase to matching
 * without waiting, while a stream faster than one id per `perIdMs` grows its jobs until they leave
 * one per `delayMs`, as few and large as before (a matching job has a fixed cost of a few ms in
 * the worker and PostgreSQL). At 2 ms per id, 500 purchases/s left as one-id jobs: six times the
 * jobs of a fixed 50 ms window, and a backlog of them drained a third slower. Ids are only ever added after their rows are committed; should the
 * process die before a flush, the rows stay `received` and the worker's relay enqueues them.
 */
export class MatchBuffer {
  private ids: string[] = [];
  private requestIds = new Set<string>();
  private timer?: NodeJS.Timeout;
  /** When the next job may leave (ms, Date.now()). */
  private nextAt = -Infinity;

  constructor(
    private readonly flushFn: FlushFn,
    private readonly delayMs: number,
    private readonly chunk = MATCH_CHUNK,
    private readonly perIdMs = 10,
  ) {}

  add(ids: readonly string[], requestId?: string): void {
    if (!ids.length) return;
    this.ids.push(...ids);
    if (requestId && this.requestIds.size < 20) this.requestIds.add(requestId);
    while (this.ids.length >= this.chunk) void this.emit(this.ids.splice(0, this.chunk));
    if (!this.ids.length) return this.clearTimer();
    if (this.timer) return;
    const wait = this.nextAt - Date.now();
    if (wait <= 0) void this.flush();
    else this.timer = setTimeout(() => void this.flush(), wait);
  }

  /** Sends whatever is buffered now (also called on shutdown); resolves once handed over. */
  flush(): Promise<void> {
    this.clearTimer();
    return this.ids.length ? this.emit(this.ids.splice(0)) : Promise.resolve();
  }

  get size(): number {
    return this.ids.length;
  }

  private emit(ids: string[]): Promise<void> {
    this.nextAt = Date.now() + Math.min(this.delayMs, ids.length * this.perIdMs);
    const requestIds = [...this.requestIds];
    this.requestIds.clear();
    return this.flushFn(ids, requestIds).then(
      () => undefined,
      () => undefined,
    );
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
