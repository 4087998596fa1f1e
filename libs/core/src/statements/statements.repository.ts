import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  MovementSums,
  MovementType,
  NO_MOVEMENTS,
  StatementFigures,
  StatementGranularity,
  StatementLine,
} from '@app/domain';

export interface BookRow {
  institution_id: string;
  currency: string;
  open_day: string;
  time_zone: string;
  pending_opening: number;
  month_pending_opening: number;
}

export interface ClosedStatementRow extends StatementFigures {
  id: string;
  institution_id: string;
  currency: string;
  granularity: StatementGranularity;
  period_start: string;
  period_end: string;
  time_zone: string;
  checksum: string;
  closed_at: Date;
}

/** Where a lines page resumes: the last line's day, booked_at (microseconds) and id. */
export interface LineKey {
  day: string;
  at: string;
  id: string;
}

export interface LineRow extends StatementLine {
  period_day: string;
  cursor_at: string;
}

const BOOK_COLUMNS = `institution_id, currency, to_char(open_day, 'YYYY-MM-DD') AS open_day, time_zone,
  pending_opening::float8 AS pending_opening, month_pending_opening::float8 AS month_pending_opening`;

const STATEMENT_COLUMNS = `id, institution_id, currency, granularity,
  to_char(period_start, 'YYYY-MM-DD') AS period_start, to_char(period_end, 'YYYY-MM-DD') AS period_end,
  time_zone, pending_opening::float8 AS pending_opening, earned::float8 AS earned, reversed::float8 AS reversed,
  settled::float8 AS settled, pending_closing::float8 AS pending_closing, clawed_back::float8 AS clawed_back,
  net_payout::float8 AS net_payout, movement_count, checksum, closed_at`;

/**
 * Statements' SQL: books (the open day per institution and currency), movements (booked by the
 * settlement_entry triggers of the statements migration, read here), closed statements.
 */
@Injectable()
export class StatementsRepository {
  constructor(private readonly db: DataSource) {}

  /** Books of one institution or all, with the current day in each book's zone. */
  books(
    institutionId: string | undefined,
    m: EntityManager | DataSource = this.db,
  ): Promise<(BookRow & { today: string })[]> {
    return m.query(
      `SELECT ${BOOK_COLUMNS}, to_char((now() AT TIME ZONE time_zone)::date, 'YYYY-MM-DD') AS today
         FROM statement_book WHERE ($1::uuid IS NULL OR institution_id = $1)
        ORDER BY institution_id, currency`,
      [institutionId ?? null],
    );
  }

  /** The book, locked against movements until the transaction ends (closing). */
  async lockBook(m: EntityManager, institutionId: string, currency: string): Promise<BookRow> {
    const [row]: BookRow[] = await m.query(
      `SELECT ${BOOK_COLUMNS} FROM statement_book WHERE institution_id = $1 AND currency = $2 FOR UPDATE`,
      [institutionId, currency],
    );
    return row;
  }

  async updateBook(m: EntityManager, b: BookRow): Promise<void> {
    await m.query(
      `UPDATE statement_book SET open_day = $3, time_zone = $4, pending_opening = $5, month_pending_opening = $6
        WHERE institution_id = $1 AND currency = $2`,
      [
        b.institution_id,
        b.currency,
        b.open_day,
        b.time_zone,
        b.pending_opening,
        b.month_pending_opening,
      ],
    );
  }

  async programTimeZone(m: EntityManager, institutionId: string): Promise<string> {
    const [row]: { tz: string }[] = await m.query(
      `SELECT COALESCE(max(time_zone), 'UTC') AS tz FROM program WHERE institution_id = $1`,
      [institutionId],
    );
    return row.tz;
  }

  /** Movement sums per day from `from` on (to `to` when given), for one book. */
  async daySums(
    institutionId: string,
    currency: string,
    from: string,
    to: string | null,
    m: EntityManager | DataSource = this.db,
  ): Promise<Map<string, MovementSums>> {
    const rows: { day: string; type: MovementType; sum: number; count: number }[] = await m.query(
      `SELECT to_char(period_day, 'YYYY-MM-DD') AS day, type, sum(amount)::float8 AS sum, count(*)::int AS count
         FROM statement_movement
        WHERE institution_id = $1 AND currency = $2 AND period_day >= $3 AND ($4::date IS NULL OR period_day <= $4)
        GROUP BY period_day, type`,
      [institutionId, currency, from, to],
    );
    const days = new Map<string, MovementSums>();
    for (const r of rows) {
      const sums = days.get(r.day) ?? NO_MOVEMENTS;
      days.set(r.day, { ...sums, [r.type]: sums[r.type] + r.sum, count: sums.count + r.count });
    }
    return days;
  }

  /** Sums of the closed day statements of one book in [from, to). */
  async closedDaySums(
    institutionId: string,
    currency: string,
    from: string,
    toExclusive: string,
    m: EntityManager | DataSource = this.db,
  ): Promise<MovementSums> {
    const [r]: MovementSums[] = await m.query(
      `SELECT COALESCE(sum(earned), 0)::float8 AS earned, COALESCE(sum(reversed), 0)::float8 AS reversed,
              COALESCE(sum(settled), 0)::float8 AS settled, COALESCE(sum(clawed_back), 0)::float8 AS clawback,
              COALESCE(sum(movement_count), 0)::int AS count
         FROM statement
        WHERE institution_id = $1 AND currency = $2 AND granularity = 'day'
          AND period_start >= $3 AND period_start < $4`,
      [institutionId, currency, from, toExclusive],
    );
    return r;
  }

  /** Stores a closed statement; its closed_at, or null when it was closed already. */
  async insertStatement(
    m: EntityManager,
    s: Omit<ClosedStatementRow, 'closed_at'>,
  ): Promise<Date | null> {
    const rows: { closed_at: Date }[] = await m.query(
      `INSERT INTO statement (id, institution_id, currency, granularity, period_start, period_end, time_zone,
                              pending_opening, earned, reversed, settled, pending_closing, clawed_back, net_payout,
                              movement_count, checksum)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       ON CONFLICT DO NOTHING RETURNING closed_at`,
      [
        s.id,
        s.institution_id,
        s.currency,
        s.granularity,
        s.period_start,
        s.period_end,
        s.time_zone,
        s.pending_opening,
        s.earned,
        s.reversed,
        s.settled,
        s.pending_closing,
        s.clawed_back,
        s.net_payout,
        s.movement_count,
        s.checksum,
      ],
    );
    return rows[0]?.closed_at ?? null;
  }

  /**
   * Closed statements of one institution and granularity overlapping [from, to], newest period
   * first then by currency, after the keyset `after` (period_start, currency); served by the
   * statement_period_unique index.
   */
  closedPage(
    institutionId: string,
    f: {
      granularity: StatementGranularity;
      from: string;
      to: string;
      currency?: string;
      after: { start: string; currency: string } | null;
      limit: number;
    },
  ): Promise<ClosedStatementRow[]> {
    return this.db.query(
      `SELECT ${STATEMENT_COLUMNS} FROM statement
        WHERE institution_id = $1 AND granularity = $2 AND period_start <= $4 AND period_end >= $3
          AND ($5::text IS NULL OR currency = $5)
          AND ($6::date IS NULL OR period_start < $6 OR (period_start = $6 AND currency > $7))
        ORDER BY period_start DESC, currency
        LIMIT $8`,
      [
        institutionId,
        f.granularity,
        f.from,
        f.to,
        f.currency ?? null,
        f.after?.start ?? null,
        f.after?.currency ?? null,
        f.limit,
      ],
    );
  }

  async closedById(institutionId: string, id: string): Promise<ClosedStatementRow | null> {
    const [row]: ClosedStatementRow[] = await this.db.query(
      `SELECT ${STATEMENT_COLUMNS} FROM statement WHERE id = $1 AND institution_id = $2`,
      [id, institutionId],
    );
    return row ?? null;
  }

  /** A period's figures per offer (the title of its latest movement). */
  offerBreakdown(
    institutionId: string,
    currency: string,
    from: string,
    to: string,
  ): Promise<
    {
      offer_id: string;
      title: string;
      earned: number;
      reversed: number;
      settled: number;
      clawed_back: number;
      movement_count: number;
    }[]
  > {
    return this.db.query(
      `SELECT offer_id, (array_agg(offer_title ORDER BY booked_at DESC))[1] AS title,
              COALESCE(sum(amount) FILTER (WHERE type = 'earned'), 0)::float8 AS earned,
              COALESCE(sum(amount) FILTER (WHERE type = 'reversed'), 0)::float8 AS reversed,
              COALESCE(sum(amount) FILTER (WHERE type = 'settled'), 0)::float8 AS settled,
              COALESCE(sum(amount) FILTER (WHERE type = 'clawback'), 0)::float8 AS clawed_back,
              count(*)::int AS movement_count
         FROM statement_movement
        WHERE institution_id = $1 AND currency = $2 AND period_day BETWEEN $3 AND $4
        GROUP BY offer_id
        ORDER BY offer_id`,
      [institutionId, currency, from, to],
    );
  }

  /**
   * One page of a period's lines in file order (period_day, booked_at, id: the same order as
   * booked_at, id), after `after`; served by statement_movement_period_idx.
   */
  linesPage(
    s: { institutionId: string; currency: string; from: string; to: string },
    after: LineKey | null,
    limit: number,
    m: EntityManager | DataSource = this.db,
  ): Promise<LineRow[]> {
    return m.query(
      `SELECT id AS movement_id, type,
              to_char(booked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS booked_at,
              redemption_id, offer_id, merchant_name, transaction_ref, amount::float8 AS amount, currency, source,
              to_char(period_day, 'YYYY-MM-DD') AS period_day,
              to_char(booked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
         FROM statement_movement m
        WHERE institution_id = $1 AND currency = $2 AND m.period_day BETWEEN $3 AND $4
          AND ($5::date IS NULL OR (m.period_day, m.booked_at, m.id) > ($5::date, $6::timestamptz, $7::uuid))
        -- The columns, not the text of the same names above: in the index's order, to the
        -- microsecond, as the cursor compares.
        ORDER BY m.period_day, m.booked_at, m.id
        LIMIT $8`,
      [
        s.institutionId,
        s.currency,
        s.from,
        s.to,
        after?.day ?? null,
        after?.at ?? null,
        after?.id ?? null,
        limit,
      ],
    );
  }

  async merchantExists(merchantId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM merchant WHERE id = $1`, [
      merchantId,
    ]);
    return rows.length > 0;
  }

  /**
   * A merchant's invoice per UTC day or month and currency: what it funded for rewards booked
   * (earned) less what every reversal gave back (reversed before settling, or clawed back after),
   * split into the service's revenue and the institutions' payout.
   */
  merchantPeriods(
    merchantId: string,
    granularity: StatementGranularity,
    from: Date,
    toExclusive: Date,
  ): Promise<
    {
      period_start: string;
      currency: string;
      merchant_funded_earned: number;
      merchant_funded_reversed: number;
      service_revenue: number;
      institution_payout: number;
      movement_count: number;
    }[]
  > {
    return this.db.query(
      `SELECT to_char(date_trunc($2, booked_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS period_start, currency,
              COALESCE(sum(merchant_funded_amount) FILTER (WHERE type = 'earned'), 0)::float8 AS merchant_funded_earned,
              COALESCE(sum(merchant_funded_amount) FILTER (WHERE type <> 'earned'), 0)::float8 AS merchant_funded_reversed,
              sum(CASE WHEN type = 'earned' THEN service_revenue_amount ELSE -service_revenue_amount END)::float8 AS service_revenue,
              sum(CASE WHEN type = 'earned' THEN institution_payout_amount ELSE -institution_payout_amount END)::float8 AS institution_payout,
              count(*)::int AS movement_count
         FROM statement_movement
        WHERE merchant_id = $1 AND booked_at >= $3 AND booked_at < $4 AND type <> 'settled'
        GROUP BY 1, currency
        ORDER BY 1 DESC, currency`,
      [merchantId, granularity, from, toExclusive],
    );
  }
}
