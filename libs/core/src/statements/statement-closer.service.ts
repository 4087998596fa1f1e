import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  addDays,
  addSums,
  chainPeriods,
  monthEnd,
  monthStart,
  MovementSums,
  pendingChange,
  statementFigures,
  StatementGranularity,
  statementId,
  SYSTEM_ACTOR,
} from '@app/domain';
import { AuditContext, AuditTrail } from '../audit/audit-trail.service';
import { WebhookEvents } from '../webhooks/webhook-events';
import { statementChecksum } from './statement-lines';
import { BookRow, StatementsRepository } from './statements.repository';

/** What a close call did: statements that went from open to closed. */
export interface CloseResult {
  closed: number;
}

/** The statements closed and the books moved on (a book moves even over days without movements). */
export interface CloseOutcome extends CloseResult {
  books: number;
}

/**
 * Closes statements (docs/statements.md): every open day of a book up to `through`, and each
 * month whose last day that closes. One transaction per book, holding the book FOR UPDATE, so a
 * movement commits either before the close (and is in it) or after (and lands in the next open
 * day). Each statement closed asks for its `statement.closed` delivery in that transaction (the
 * webhook outbox; institutions that chose the event only). Safe to run twice and in several
 * workers at once: a second close of the same days finds the book already past them. Each book
 * that moves records its `statement.close` audit entry in its own transaction (actor `system` for
 * the scheduled close), so the log never says a book closed that did not, nor the reverse.
 */
@Injectable()
export class StatementCloser {
  private readonly logger = new Logger('Statements');

  constructor(
    private readonly db: DataSource,
    private readonly repo: StatementsRepository,
    private readonly webhooks: WebhookEvents,
    private readonly audit: AuditTrail,
  ) {}

  /** Books whose current day is before `through` (in the book's zone): nothing is closed then. */
  async booksAhead(through: string, institutionId?: string): Promise<string[]> {
    const books = await this.repo.books(institutionId);
    return books.filter((b) => through > b.today).map((b) => b.institution_id);
  }

  /**
   * Closes every book of one institution, or of all, through `through` — a fixed day, or a day per
   * book (the scheduled close passes the day before each book's current day).
   */
  async close(
    through: string | ((book: BookRow & { today: string }) => string),
    institutionId?: string,
    ctx: AuditContext = { actor: SYSTEM_ACTOR, requestId: null },
  ): Promise<CloseOutcome> {
    let closed = 0;
    let books = 0;
    for (const book of await this.repo.books(institutionId)) {
      const day = typeof through === 'string' ? through : through(book);
      if (book.open_day > day) continue;
      const n = await this.db.transaction((m) =>
        this.closeBook(m, book.institution_id, book.currency, day, ctx),
      );
      if (n === null) continue;
      closed += n;
      books++;
    }
    if (closed) this.logger.log({ closed }, 'statements closed');
    return { closed, books };
  }

  /** Statements closed, or null when the book was already past `through` (nothing changed). */
  private async closeBook(
    m: EntityManager,
    institutionId: string,
    currency: string,
    through: string,
    ctx: AuditContext,
  ): Promise<number | null> {
    const book = await this.repo.lockBook(m, institutionId, currency);
    if (!book || book.open_day > through) return null;
    const days = await this.repo.daySums(institutionId, currency, book.open_day, through, m);
    let closed = 0;
    let opening = book.pending_opening;
    let monthOpening = book.month_pending_opening;
    let timeZone = book.time_zone;
    const write = async (
      granularity: StatementGranularity,
      start: string,
      end: string,
      pendingOpening: number,
      sums: MovementSums,
    ) => {
      const checksum = await statementChecksum(
        this.repo,
        { institutionId, currency, from: start, to: end },
        m,
      );
      const id = statementId(institutionId, currency, granularity, start);
      const figures = statementFigures(pendingOpening, sums);
      const closedAt = await this.repo.insertStatement(m, {
        id,
        institution_id: institutionId,
        currency,
        granularity,
        period_start: start,
        period_end: end,
        time_zone: timeZone,
        checksum,
        ...figures,
      });
      if (!closedAt) return;
      closed++;
      await this.webhooks.statementsClosed(
        m,
        [
          {
            id,
            institutionId,
            granularity,
            periodStart: start,
            periodEnd: end,
            timeZone,
            currency,
            checksum,
            pendingOpening: figures.pending_opening,
            earned: figures.earned,
            reversed: figures.reversed,
            settled: figures.settled,
            pendingClosing: figures.pending_closing,
            clawedBack: figures.clawed_back,
            netPayout: figures.net_payout,
            movementCount: figures.movement_count,
          },
        ],
        closedAt,
      );
    };

    // Month by month from the open day's month to through's.
    for (
      let month = monthStart(book.open_day);
      month <= through;
      month = addDays(monthEnd(month), 1)
    ) {
      const first = month < book.open_day ? book.open_day : month;
      const last = monthEnd(month) < through ? monthEnd(month) : through;
      const withMovements = [...days.keys()].filter((d) => d >= first && d <= last).sort();
      const sums = withMovements.map((d) => days.get(d)!);
      const figures = chainPeriods(opening, sums);
      for (const [i, d] of withMovements.entries())
        await write('day', d, d, figures[i].pending_opening, sums[i]);
      opening += sums.reduce((t, s) => t + pendingChange(s), 0);

      if (last === monthEnd(month)) {
        // The month is exactly its days: those closed before this call and those closed now.
        const earlier = await this.repo.closedDaySums(institutionId, currency, month, first, m);
        const monthSums = sums.reduce(addSums, earlier);
        if (monthSums.count) await write('month', month, last, monthOpening, monthSums);
        monthOpening += pendingChange(monthSums);
        if (monthOpening !== opening)
          throw new Error(`statement book ${institutionId}/${currency}: month does not tie out`);
        // A program's new time zone applies from the first day of the next month.
        timeZone = await this.repo.programTimeZone(m, institutionId);
      }
    }

    await this.repo.updateBook(m, {
      institution_id: institutionId,
      currency,
      open_day: addDays(through, 1),
      time_zone: timeZone,
      pending_opening: opening,
      month_pending_opening: monthOpening,
    });
    await this.audit.record(m, ctx, {
      action: 'statement.close',
      resourceType: 'institution',
      resourceId: institutionId,
      institutionId,
      before: { currency, open_day: book.open_day },
      after: { currency, through, closed, open_day: addDays(through, 1) },
    });
    return closed;
  }
}
