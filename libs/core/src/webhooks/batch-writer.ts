/**
 * Group commit for the delivery engine's writes: concurrent attempts' claims (and outcomes) leave
 * together in one statement. No timer: with a free slot an item is written at once (lowest latency
 * when idle); while every slot is busy, items gather and leave together as soon as one frees.
 * (The same idea as ingestion's GroupCommitter; kept here so webhooks do not depend on ingestion.)
 */
export class BatchWriter<I, O> {
  private pending: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;

  /** `write` gets a batch and returns one result per item, in order. */
  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly options: { maxBatch: number; maxInFlight: number },
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.drain();
    });
  }

  private async run(batch: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[]): Promise<void> {
    try {
      const results = await this.write(batch.map((p) => p.item));
      if (results.length !== batch.length) throw new Error(`batch write returned ${results.length} results for ${batch.length} items`);
      batch.forEach((p, i) => p.resolve(results[i]));
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }

  private drain(): void {
    while (this.inFlight < this.options.maxInFlight && this.pending.length) {
      const batch = this.pending.splice(0, this.options.maxBatch);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.drain();
      });
    }
  }
}
