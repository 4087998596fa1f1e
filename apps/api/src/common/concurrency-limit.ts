/**
 * At most `limit` calls of `run` at once; the rest wait in arrival order. For work that holds
 * several pooled connections at a time (a call waiting for its second connection while others
 * hold the rest of the pool could wait forever) or that would only share the same cores anyway.
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((turn) => this.waiting.push(turn));
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next in line, so a newcomer cannot take it first.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
