import { isRowDataError } from '@app/db';

/**
 * Group commit: concurrent callers' items are written together. A single-row insert is bound by
 * the commit (about 1,350 commits/s on the reference machine, docs/transactions.md); coalescing the
 * rows that arrive while earlier writes are in flight into one multi-row statement multiplies
 * that ceiling, while each caller is still answered only after its own row is committed.
 *
 * No timer: with a free slot an item is written at once (lowest latency at low load); when every
 * slot is busy, items wait and leave together in the next batch as soon as a slot frees.
 * Used by single transaction posts (ingestion) and by the webhook engine's claims and outcomes.
 *
 * One caller's bad item must not fail the others grouped with it (another tenant's posts, say):
 * a write refused for an item's data is split and retried until only that item is refused.
 */
export interface GroupCommitOptions {
  /** Most items per write. */
  maxBatch: number;
  /** Writes in flight at once (each holds one database connection). */
  maxInFlight: number;
  /**
   * Whether a failed write is about some item's data (then the group is split in halves and each
   * half written again, down to the single item, so only the offender fails). Default: the
   * statement was refused for a row's data (libs/db isRowDataError); an outage fails everyone.
   */
  isolate?: (e: unknown) => boolean;
}

interface Pending<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (e: unknown) => void;
}

export class GroupCommitter<I, O> {
  private pending: Pending<I, O>[] = [];
  private inFlight = 0;

  /** `write` gets a batch and must return one result per item, in order. */
  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly options: GroupCommitOptions,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.drain();
    });
  }

  /** Items waiting for a slot (for metrics and tests). */
  get waiting(): number {
    return this.pending.length;
  }

  get writing(): number {
    return this.inFlight;
  }

  private drain(): void {
    while (this.inFlight < this.options.maxInFlight && this.pending.length) {
      const batch = this.pending.splice(0, this.options.maxBatch);
      this.inFlight++;
      this.run(batch).finally(() => {
        this.inFlight--;
        this.drain();
      });
    }
  }

  private async run(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.write(batch.map((p) => p.item));
      if (results.length !== batch.length)
        throw new Error(`group write returned ${results.length} results for ${batch.length} items`);
      batch.forEach((p, i) => p.resolve(results[i]));
    } catch (e) {
      if (batch.length > 1 && (this.options.isolate ?? isRowDataError)(e)) {
        // Halves in turn, on the same slot: about 2·log2(n) writes find one offender.
        const mid = batch.length >> 1;
        await this.run(batch.slice(0, mid));
        await this.run(batch.slice(mid));
        return;
      }
      for (const p of batch) p.reject(e);
    }
  }
}
