import { MATCH_CHUNK } from '@app/queue';

export type FlushFn = (ids: string[], requestIds: string[]) => Promise<unknown>;

/**
 * Coalesces the ids committed by many small writes (group-committed single posts arrive a few at
 * a time) into matching jobs of up to MATCH_CHUNK ids: a job per chunk, not per request. Flushes
 * at once when a chunk is full, otherwise `delayMs` after the first id arrived. Ids are only ever
 * added after their rows are committed; should the process die before a flush, the rows stay
 * `received` and the worker's relay enqueues them.
 */
export class MatchBuffer {
  private ids: string[] = [];
  private requestIds = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly flushFn: FlushFn,
    private readonly delayMs: number,
    private readonly chunk = MATCH_CHUNK,
  ) {}

  add(ids: readonly string[], requestId?: string): void {
    if (!ids.length) return;
    this.ids.push(...ids);
    if (requestId && this.requestIds.size < 20) this.requestIds.add(requestId);
    while (this.ids.length >= this.chunk) void this.emit(this.ids.splice(0, this.chunk));
    if (this.ids.length && !this.timer)
      this.timer = setTimeout(() => void this.flush(), this.delayMs);
    if (!this.ids.length) this.clearTimer();
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
