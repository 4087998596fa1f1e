import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { EngagementKind } from '@app/domain';
import { EngagementColumns, EngagementEventsRepository } from './engagement-events.repository';

/** How often buffered events are written, and the buffer size that triggers a write at once. */
export const FLUSH_INTERVAL_MS = 200;
export const FLUSH_BATCH = 1_000;
/** Beyond this many unwritten events (database down), the oldest are dropped and counted. */
export const MAX_BUFFERED = 100_000;

/** Columnar buffer: the arrays go to PostgreSQL as they are, one unnest() per flush. */
type Columns = EngagementColumns;

const empty = (): Columns => ({
  institutionId: [],
  kind: [],
  cardholderToken: [],
  offerId: [],
  occurredAt: [],
});

/**
 * Funnel events (widget views, impressions, add successes) without slowing the feed: requests
 * append to an in-memory buffer; a timer writes it every 200 ms (or as soon as 1,000 events
 * wait) with one multi-row INSERT … SELECT FROM unnest(...). A failed write keeps the events for
 * the next one (bounded); errors are logged, never thrown to a request. The buffer is written on
 * shutdown. At most the last ~200 ms of events are lost if the process is killed outright.
 */
@Injectable()
export class EngagementRecorder implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(EngagementRecorder.name);
  private buffer: Columns = empty();
  private timer?: NodeJS.Timeout;
  private inFlight: Promise<void> | null = null;
  private dropped = 0;

  constructor(private readonly events: EngagementEventsRepository) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
    if (this.pending > 0)
      this.logger.warn({ events: this.pending }, 'engagement events not written at shutdown');
  }

  /** One widget view for the feed call and one impression per offer returned. */
  recordFeed(
    institutionId: string,
    cardholderToken: string,
    offerIds: readonly string[],
    at = new Date(),
  ): void {
    const ts = at.toISOString();
    this.push(institutionId, 'widget_view', cardholderToken, null, ts);
    for (const id of offerIds) this.push(institutionId, 'impression', cardholderToken, id, ts);
    this.maybeFlushEarly();
  }

  /** One add success (an add answered `added`). */
  recordAdd(
    institutionId: string,
    cardholderToken: string,
    offerId: string,
    at = new Date(),
  ): void {
    this.push(institutionId, 'add_success', cardholderToken, offerId, at.toISOString());
    this.maybeFlushEarly();
  }

  /** Events waiting to be written. */
  get pending(): number {
    return this.buffer.kind.length;
  }

  /**
   * Writes everything buffered so far (waiting for a write already under way first). Never
   * throws. Tests await it to read the events deterministically.
   */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight;
    if (this.pending === 0) return;
    const batch = this.buffer;
    this.buffer = empty();
    this.inFlight = this.write(batch).finally(() => (this.inFlight = null));
    await this.inFlight;
  }

  private push(
    institutionId: string,
    kind: EngagementKind,
    cardholderToken: string,
    offerId: string | null,
    at: string,
  ): void {
    const b = this.buffer;
    b.institutionId.push(institutionId);
    b.kind.push(kind);
    b.cardholderToken.push(cardholderToken);
    b.offerId.push(offerId);
    b.occurredAt.push(at);
  }

  private maybeFlushEarly(): void {
    if (this.pending >= FLUSH_BATCH && !this.inFlight) void this.flush();
  }

  private async write(batch: Columns): Promise<void> {
    if (!this.events.ready) {
      this.requeue(batch);
      return;
    }
    try {
      await this.events.insert(batch);
      if (this.dropped) {
        this.logger.warn(
          { dropped: this.dropped },
          'engagement events were dropped while the database was unavailable',
        );
        this.dropped = 0;
      }
    } catch (e) {
      // Only the error's message: the parameters carry cardholder tokens.
      this.logger.error(
        { err: (e as Error).message, events: batch.kind.length },
        'could not write engagement events; will retry',
      );
      this.requeue(batch);
    }
  }

  /** Puts a failed batch back in front of newer events, dropping the oldest beyond the bound. */
  private requeue(batch: Columns): void {
    const merged: Columns = {
      institutionId: [...batch.institutionId, ...this.buffer.institutionId],
      kind: [...batch.kind, ...this.buffer.kind],
      cardholderToken: [...batch.cardholderToken, ...this.buffer.cardholderToken],
      offerId: [...batch.offerId, ...this.buffer.offerId],
      occurredAt: [...batch.occurredAt, ...this.buffer.occurredAt],
    };
    const excess = merged.kind.length - MAX_BUFFERED;
    if (excess > 0) {
      for (const col of Object.values(merged) as unknown[][]) col.splice(0, excess);
      this.dropped += excess;
    }
    this.buffer = merged;
  }
}
