/**
 * Counts uses of the break-glass operator token in this process: the first use of a quiet
 * period opens a window, and when it ends one line reports how many uses it held (so a script
 * hammering the token gives one line a minute, not one per request).
 */
export class BreakGlassMeter {
  private uses = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly report: (uses: number, windowMs: number) => void,
    private readonly windowMs = 60_000,
  ) {}

  use(): void {
    this.uses += 1;
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.windowMs);
    this.timer.unref();
  }

  /** Reports the open window now (also on shutdown). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.uses === 0) return;
    const n = this.uses;
    this.uses = 0;
    this.report(n, this.windowMs);
  }
}
