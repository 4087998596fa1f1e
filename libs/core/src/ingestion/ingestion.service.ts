import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { isRowDataError, pgErrorCode, rowDataErrorReason, type TransactionSource } from '@app/db';
import type { TransactionEvent } from '@app/domain';
import { MatchQueue } from '../matching/match-queue';
import { GroupCommitter } from '../group-commit';
import { MatchBuffer } from './match-buffer';
import { NewTransaction, TransactionStore } from './transaction-store';
import { ingestedTransactions } from '../metrics';

export interface SubmitResult {
  id: string;
  duplicate: boolean;
}

interface SingleItem extends NewTransaction {
  requestId?: string;
}

/**
 * Input indexes of the rows written, of the duplicates (stored before, or repeated in the input)
 * and of the rows the database refused (with a reason for the client), which fail alone.
 */
export interface BatchOutcome {
  accepted: number[];
  duplicates: number[];
  failed: { index: number; reason: string }[];
}

type InsertOutcome = string | null | { error: string };

/** Single posts coalesced per write: enough to pass the commit ceiling, small enough to stay fast. */
const GROUP = { maxBatch: 500, maxInFlight: 4 };
/**
 * Committed ids wait at most this long to be enqueued with others (one matching job per chunk),
 * and only when ids come faster than one per 10 ms: a purchase on a quiet api is enqueued at once
 * (MatchBuffer).
 */
const ENQUEUE_DELAY_MS = 50;

/**
 * Ingestion, shared by the single, batch and CSV paths: rows are committed first (set-based
 * insert, duplicates decided by the unique (institution_id, transaction_ref)), then handed to
 * matching after commit. The caller is answered only once its row is committed; the enqueue never
 * makes the caller fail (the relay covers a Redis outage).
 */
@Injectable()
export class IngestionService implements OnModuleDestroy {
  private readonly logger = new Logger('Ingestion');
  private readonly singles: GroupCommitter<SingleItem, SubmitResult>;
  private readonly toMatch: MatchBuffer;

  constructor(
    private readonly store: TransactionStore,
    private readonly matchQueue: MatchQueue,
  ) {
    this.singles = new GroupCommitter((items) => this.writeSingles(items), GROUP);
    this.toMatch = new MatchBuffer(
      (ids, requestIds) => this.matchQueue.enqueue(ids, { requestIds, origin: 'ingest' }),
      ENQUEUE_DELAY_MS,
    );
  }

  /** On shutdown, hands the ids still buffered to the queue (which closes after this, at application shutdown). */
  onModuleDestroy(): Promise<void> {
    return this.toMatch.flush();
  }

  /** One transaction (POST /api/v1/transactions): group-committed with concurrent posts. */
  submitOne(
    institutionId: string,
    event: TransactionEvent,
    requestId?: string,
  ): Promise<SubmitResult> {
    return this.singles.submit({ institutionId, event, requestId });
  }

  /**
   * Many transactions of one institution in one statement. `events[i]` null = invalid item
   * (skipped). A reference repeated inside the input is accepted once (first occurrence), later
   * occurrences are duplicates, like references already stored. `history`: the rows are the
   * cardholders' past purchases, stored final and never handed to matching.
   */
  async submitMany(
    institutionId: string,
    events: readonly (TransactionEvent | null)[],
    source: Exclude<TransactionSource, 'api'>,
    requestId?: string,
    options: { history?: boolean } = {},
  ): Promise<BatchOutcome> {
    const firstByRef = new Map<string, number>();
    const duplicates: number[] = [];
    const toInsert: number[] = [];
    events.forEach((e, i) => {
      if (!e) return;
      if (firstByRef.has(e.transactionRef)) duplicates.push(i);
      else {
        firstByRef.set(e.transactionRef, i);
        toInsert.push(i);
      }
    });
    const ids = await this.insertIsolating(
      toInsert.map((i) => ({ institutionId, event: events[i]! })),
      source,
      options,
    );
    const accepted: number[] = [];
    const failed: BatchOutcome['failed'] = [];
    const newIds: string[] = [];
    ids.forEach((id, n) => {
      if (typeof id === 'string') {
        accepted.push(toInsert[n]);
        newIds.push(id);
      } else if (id) failed.push({ index: toInsert[n], reason: id.error });
      else duplicates.push(toInsert[n]);
    });
    duplicates.sort((a, b) => a - b);
    const stored = ids
      .map((id, n) => (id === null ? { institutionId, event: events[toInsert[n]]! } : null))
      .filter((r): r is NewTransaction => r !== null);
    if (stored.length) await this.noteClaimedDuplicates(stored);
    if (!options.history) this.toMatch.add(newIds, requestId);
    const count = ingestedTransactions();
    count.inc({ source, result: 'accepted' }, accepted.length);
    count.inc({ source, result: 'duplicate' }, duplicates.length);
    count.inc({ source, result: 'failed' }, failed.length);
    return { accepted, duplicates, failed };
  }

  /**
   * A duplicate of a reference an approved claim stored raises an inbox message when it differs
   * (TransactionStore.noteClaimedDuplicates). It never fails the post: the duplicate is answered.
   */
  private async noteClaimedDuplicates(rows: NewTransaction[]): Promise<void> {
    try {
      await this.store.noteClaimedDuplicates(rows);
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, 'could not check duplicates against claims');
    }
  }

  /**
   * One statement for all rows; when the database refuses it for some row's data, halves are
   * written in turn down to the single row, so only the offending rows fail (with a reason).
   * Nothing is committed by a refused statement, so the retries write each row at most once.
   */
  private async insertIsolating(
    rows: NewTransaction[],
    source: TransactionSource,
    options: { history?: boolean } = {},
  ): Promise<InsertOutcome[]> {
    try {
      return await this.store.insert(rows, source, options);
    } catch (e) {
      if (!isRowDataError(e)) throw e;
      if (rows.length === 1) {
        this.logger.warn(
          { code: pgErrorCode(e), source },
          'a transaction row refused by the database',
        );
        return [{ error: rowDataErrorReason(e) }];
      }
      const mid = rows.length >> 1;
      const head = await this.insertIsolating(rows.slice(0, mid), source, options);
      return [...head, ...(await this.insertIsolating(rows.slice(mid), source, options))];
    }
  }

  /** The group write of single posts: one insert, then the original ids of the duplicates. */
  private async writeSingles(items: SingleItem[]): Promise<SubmitResult[]> {
    // Concurrent posts of one reference in the same group: the first is written, the rest are its duplicates.
    const first = new Map<string, number>();
    const unique: SingleItem[] = [];
    items.forEach((it, i) => {
      const k = TransactionStore.key(it.institutionId, it.event.transactionRef);
      if (!first.has(k)) {
        first.set(k, i);
        unique.push(it);
      }
    });
    const ids = await this.store.insert(unique, 'api');
    const idByKey = new Map<string, string>();
    const missing: { institutionId: string; transactionRef: string }[] = [];
    const newIds: string[] = [];
    unique.forEach((it, n) => {
      const k = TransactionStore.key(it.institutionId, it.event.transactionRef);
      if (ids[n]) {
        idByKey.set(k, ids[n]!);
        newIds.push(ids[n]!);
      } else
        missing.push({ institutionId: it.institutionId, transactionRef: it.event.transactionRef });
    });
    const originals = await this.store.findIds(missing);
    if (missing.length) await this.noteClaimedDuplicates(unique.filter((_, n) => !ids[n]));
    this.toMatch.add(newIds, items[0]?.requestId);
    ingestedTransactions().inc({ source: 'api', result: 'accepted' }, newIds.length);
    ingestedTransactions().inc(
      { source: 'api', result: 'duplicate' },
      items.length - newIds.length,
    );
    return items.map((it, i) => {
      const k = TransactionStore.key(it.institutionId, it.event.transactionRef);
      const own = first.get(k) === i ? idByKey.get(k) : undefined;
      if (own) return { id: own, duplicate: false };
      const original = idByKey.get(k) ?? originals.get(k);
      if (!original) {
        this.logger.error('a duplicate transaction_ref whose original row cannot be found');
        throw new Error('duplicate without original');
      }
      return { id: original, duplicate: true };
    });
  }
}
