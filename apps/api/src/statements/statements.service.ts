import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import {
  AuditContext,
  AuditTrail,
  BookRow,
  ClosedStatementRow,
  LineKey,
  statementFile,
  StatementCloser,
  StatementsRepository,
} from '@app/core';
import {
  addDays,
  addSums,
  chainPeriods,
  monthEnd,
  monthStart,
  MovementSums,
  NO_MOVEMENTS,
  pendingChange,
  periodOf,
  statementFigures,
  StatementFigures,
  StatementGranularity,
  statementId,
  toMajor,
} from '@app/domain';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import {
  CloseStatementsResultDto,
  MerchantStatementDto,
  StatementDetailDto,
  StatementDto,
  StatementLineDto,
} from './statements.dto';

const DEFAULT_LIMIT = 100;
const FIRST_DAY = '0001-01-01';
const LAST_DAY = '9999-12-31';

/** A statement in minor units, open (computed live) or closed (as stored). */
interface Period extends StatementFigures {
  id: string;
  granularity: StatementGranularity;
  period_start: string;
  period_end: string;
  time_zone: string;
  currency: string;
  status: 'open' | 'closed';
  closed_at: Date | null;
  checksum: string | null;
}

/**
 * Institution statements (docs/statements.md): closed periods as stored, open ones computed live
 * from the book (its open day's balance) and the movements booked since, so an open period shows
 * the figures it will close with if nothing else is booked.
 */
@Injectable()
export class StatementsService {
  constructor(
    private readonly repo: StatementsRepository,
    private readonly closer: StatementCloser,
    private readonly config: AppConfig,
    private readonly audit: AuditTrail,
  ) {}

  async list(
    institutionId: string,
    q: {
      granularity: StatementGranularity;
      from?: string;
      to?: string;
      currency?: string;
      cursor?: string;
      limit?: number;
    },
  ): Promise<Page<StatementDto>> {
    const from = validDay(q.from, 'from') ?? FIRST_DAY;
    const to = validDay(q.to, 'to') ?? LAST_DAY;
    if (from > to) throw ApiError.validation([{ field: 'from', message: 'must not be after to' }]);
    const limit = q.limit ?? DEFAULT_LIMIT;
    const keyset = new Keyset(
      this.config.keys,
      `${institutionId}:statements:${q.granularity}:${from}:${to}:${q.currency ?? '*'}`,
    );
    const key = keyset.decode(q.cursor);
    const after = key ? { start: key.t, currency: key.id } : null;
    const isAfter = (p: Period) =>
      !after ||
      p.period_start < after.start ||
      (p.period_start === after.start && p.currency > after.currency);

    const [closed, open] = await Promise.all([
      this.repo.closedPage(institutionId, { ...q, from, to, after, limit: limit + 1 }),
      this.openPeriods(institutionId, q.currency),
    ]);
    const rows = [
      ...closed.map(fromClosed),
      ...open.filter(
        (p) =>
          p.granularity === q.granularity &&
          p.period_start <= to &&
          p.period_end >= from &&
          isAfter(p),
      ),
    ].sort((a, b) =>
      a.period_start === b.period_start
        ? a.currency.localeCompare(b.currency)
        : b.period_start.localeCompare(a.period_start),
    );
    return keyset.pageBy(rows.slice(0, limit + 1), limit, toDto, (p) => ({
      t: p.period_start,
      id: p.currency,
    }));
  }

  async get(institutionId: string, id: string): Promise<StatementDetailDto> {
    const p = await this.find(institutionId, id);
    const offers = await this.repo.offerBreakdown(
      institutionId,
      p.currency,
      p.period_start,
      p.period_end,
    );
    return {
      ...toDto(p),
      offers: offers.map((o) => ({
        offer_id: o.offer_id,
        title: o.title,
        earned: toMajor(o.earned, p.currency),
        reversed: toMajor(o.reversed, p.currency),
        settled: toMajor(o.settled, p.currency),
        clawed_back: toMajor(o.clawed_back, p.currency),
        movement_count: o.movement_count,
      })),
    };
  }

  async lines(
    institutionId: string,
    id: string,
    q: { cursor?: string; limit?: number },
  ): Promise<Page<StatementLineDto>> {
    const p = await this.find(institutionId, id);
    const keyset = new Keyset(this.config.keys, `${institutionId}:statement-lines:${id}`);
    const key = keyset.decode(q.cursor);
    const [day, at] = key ? key.t.split('|') : [];
    const after: LineKey | null = key && day && at ? { day, at, id: key.id } : null;
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await this.repo.linesPage(
      { institutionId, currency: p.currency, from: p.period_start, to: p.period_end },
      after,
      limit + 1,
    );
    return keyset.pageBy(
      rows,
      limit,
      (r) => ({
        movement_id: r.movement_id,
        type: r.type,
        booked_at: r.booked_at,
        redemption_id: r.redemption_id,
        offer_id: r.offer_id,
        merchant_name: r.merchant_name,
        transaction_ref: r.transaction_ref,
        amount: toMajor(r.amount, r.currency),
        currency: r.currency,
        source: r.source,
      }),
      (r) => ({ t: `${r.period_day}|${r.cursor_at}`, id: r.movement_id }),
    );
  }

  /**
   * The whole lines file (CSV) as text chunks, read a batch at a time; a statement that does not
   * exist fails here, before any byte is written.
   */
  async file(institutionId: string, id: string): Promise<AsyncGenerator<string>> {
    const p = await this.find(institutionId, id);
    return statementFile(this.repo, {
      institutionId,
      currency: p.currency,
      from: p.period_start,
      to: p.period_end,
    });
  }

  /**
   * The operators' close: every open day through `through`, for one institution or all. Each book
   * records its `statement.close` entry in its own closing transaction (StatementCloser); a call
   * that moves no book changes nothing and records one entry saying so.
   */
  async close(
    through: string,
    institutionId: string | undefined,
    ctx: AuditContext,
  ): Promise<CloseStatementsResultDto> {
    validDay(through, 'through');
    const ahead = await this.closer.booksAhead(through, institutionId);
    if (ahead.length)
      throw ApiError.validation([
        { field: 'through', message: "is after the institution's current day" },
      ]);
    const { closed, books } = await this.closer.close(through, institutionId, ctx);
    if (books === 0)
      await this.audit.recordAlone(ctx, {
        action: 'statement.close',
        resourceType: institutionId ? 'institution' : 'statement',
        resourceId: institutionId ?? null,
        institutionId: institutionId ?? null,
        after: { through, closed },
      });
    return { closed };
  }

  async merchantStatements(
    merchantId: string,
    q: { granularity: StatementGranularity; from?: string; to?: string },
  ): Promise<{ data: MerchantStatementDto[] }> {
    const from = validDay(q.from, 'from') ?? '1970-01-01';
    const to = validDay(q.to, 'to') ?? LAST_DAY;
    if (from > to) throw ApiError.validation([{ field: 'from', message: 'must not be after to' }]);
    if (!(await this.repo.merchantExists(merchantId)))
      throw ApiError.notFound('merchant_not_found', 'No such merchant.');
    const end =
      to === LAST_DAY ? new Date('9999-12-31T00:00:00Z') : new Date(`${addDays(to, 1)}T00:00:00Z`);
    const rows = await this.repo.merchantPeriods(
      merchantId,
      q.granularity,
      new Date(`${from}T00:00:00Z`),
      end,
    );
    return {
      data: rows.map((r) => {
        const m = (v: number) => toMajor(v, r.currency);
        return {
          granularity: q.granularity,
          period_start: r.period_start,
          period_end: periodOf(q.granularity, r.period_start)[1],
          currency: r.currency,
          merchant_funded_earned: m(r.merchant_funded_earned),
          merchant_funded_reversed: m(r.merchant_funded_reversed),
          service_revenue: m(r.service_revenue),
          institution_payout: m(r.institution_payout),
          net_invoiced: m(r.merchant_funded_earned - r.merchant_funded_reversed),
          movement_count: r.movement_count,
        };
      }),
    };
  }

  /** A closed statement as stored, or an open one by its id; another institution's is 404. */
  private async find(institutionId: string, id: string): Promise<Period> {
    const closed = await this.repo.closedById(institutionId, id);
    if (closed) return fromClosed(closed);
    const open = (await this.openPeriods(institutionId)).find((p) => p.id === id);
    if (!open) throw ApiError.notFound('statement_not_found', 'No such statement.');
    return open;
  }

  /**
   * The open periods of each book: every open day with movements, the current day, and the months
   * they fall in, each opening where the previous one closes.
   */
  private async openPeriods(institutionId: string, currency?: string): Promise<Period[]> {
    const books = (await this.repo.books(institutionId)).filter(
      (b) => !currency || b.currency === currency,
    );
    const periods = await Promise.all(books.map((b) => this.openPeriodsOf(b)));
    return periods.flat();
  }

  private async openPeriodsOf(b: BookRow & { today: string }): Promise<Period[]> {
    const days = await this.repo.daySums(b.institution_id, b.currency, b.open_day, null);
    const current = b.today > b.open_day ? b.today : b.open_day;
    if (!days.has(current)) days.set(current, NO_MOVEMENTS);
    const dayList = [...days.keys()].sort();
    const figures = chainPeriods(
      b.pending_opening,
      dayList.map((d) => days.get(d)!),
    );
    const open = (
      granularity: StatementGranularity,
      start: string,
      end: string,
      f: StatementFigures,
    ): Period => ({
      ...f,
      id: statementId(b.institution_id, b.currency, granularity, start),
      granularity,
      period_start: start,
      period_end: end,
      time_zone: b.time_zone,
      currency: b.currency,
      status: 'open',
      closed_at: null,
      checksum: null,
    });
    const out = dayList.map((d, i) => open('day', d, d, figures[i]));

    // Months: the book's open month also holds the days closed before its open day.
    let monthOpening = b.month_pending_opening;
    for (
      let month = monthStart(b.open_day);
      month <= current;
      month = addDays(monthEnd(month), 1)
    ) {
      const earlier =
        month === monthStart(b.open_day)
          ? await this.repo.closedDaySums(b.institution_id, b.currency, month, b.open_day)
          : NO_MOVEMENTS;
      const sums: MovementSums = dayList
        .filter((d) => d >= month && d <= monthEnd(month))
        .map((d) => days.get(d)!)
        .reduce(addSums, earlier);
      out.push(open('month', month, monthEnd(month), statementFigures(monthOpening, sums)));
      monthOpening += pendingChange(sums);
    }
    return out;
  }
}

function fromClosed(r: ClosedStatementRow): Period {
  return { ...r, status: 'closed' };
}

function toDto(p: Period): StatementDto {
  const m = (v: number) => toMajor(v, p.currency);
  return {
    id: p.id,
    granularity: p.granularity,
    period_start: p.period_start,
    period_end: p.period_end,
    time_zone: p.time_zone,
    currency: p.currency,
    status: p.status,
    closed_at: p.closed_at?.toISOString() ?? null,
    checksum: p.checksum ? p.checksum.trim() : null,
    pending_opening: m(p.pending_opening),
    earned: m(p.earned),
    reversed: m(p.reversed),
    settled: m(p.settled),
    pending_closing: m(p.pending_closing),
    clawed_back: m(p.clawed_back),
    net_payout: m(p.net_payout),
    movement_count: p.movement_count,
  };
}

/** A real calendar day, or undefined when absent. */
function validDay(v: string | undefined, field: string): string | undefined {
  if (v === undefined) return undefined;
  const d = new Date(`${v}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v)
    throw ApiError.validation([{ field, message: 'must be a date YYYY-MM-DD' }]);
  return v;
}
