/**
 * One warning per outage of a dependency the api can do without (Redis for rate-limit counters),
 * not one per request: the first failure is logged, the rest are counted, and the recovery is
 * logged once with how long it lasted and how many requests went through unchecked.
 */
export class OutageLog {
  private since: number | null = null;
  private unchecked = 0;

  constructor(
    private readonly logger: {
      warn(obj: object, msg: string): void;
      log(obj: object, msg: string): void;
    },
    private readonly what: string,
    private readonly now: () => number = Date.now,
  ) {}

  get down(): boolean {
    return this.since !== null;
  }

  failed(e: unknown): void {
    this.unchecked++;
    if (this.since !== null) return;
    this.since = this.now();
    this.logger.warn(
      { err: (e as Error)?.message ?? String(e) },
      `${this.what} unavailable; requests are not rate limited until it is back (logged once per outage)`,
    );
  }

  ok(): void {
    if (this.since === null) return;
    this.logger.log(
      { downMs: this.now() - this.since, requestsNotLimited: this.unchecked },
      `${this.what} available again`,
    );
    this.since = null;
    this.unchecked = 0;
  }
}
