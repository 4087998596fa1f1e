import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { KeysetAfter, keysetSql, ReadFrom, ReplicaReader, VIEWER_CHUNK_BITS } from '@app/db';

/** Totals of one (status and) currency: amounts as exact decimal text. */
export interface CurrencyTotalsRow {
  currency: string;
  count: number;
  payout: string;
  funded: string;
  status?: string;
}

export interface RedemptionRow {
  id: string;
  cursor_t: string;
  created_at: Date;
  status: string;
  currency: string;
  merchant_funded_amount: string;
  institution_payout_amount: string;
  cashback_amount: string;
  cardholder_token: string;
  offer_id: string;
  merchant_name: string;
  title: string | null;
  transaction_ref: string;
  purchase_amount: string;
  goal_round: number | null;
}

export interface SettlementRow {
  id: string;
  cursor_t: string;
  redemption_id: string;
  offer_id: string;
  merchant_id: string;
  currency: string;
  merchant_funded_amount: string;
  service_revenue_amount: string;
  institution_payout_amount: string;
  status: string;
  created_at: Date;
  settled_at: Date | null;
  reversed_at: Date | null;
  /** Stored on the entry's redemption. */
  transaction_ref: string;
  purchase_amount: string;
  goal_round: number | null;
}

/** [start, end) split into whole buckets and raw edges (see splitWindow). */
export interface WindowSplit {
  wholeFrom: Date;
  wholeTo: Date;
  headTo: Date;
  tailFrom: Date;
}

export interface FunnelCounts {
  widget_views: number;
  unique_cardholders: number;
  offer_impressions: number;
  offer_add_successes: number;
  redemptions: number;
}

/** A reporting window: `from` inclusive, `to` exclusive, either open. */
export interface WindowFilter {
  from?: string;
  to?: string;
  status?: string;
}

/** Reporting reads over redemption and settlement_entry for one institution and window. */
@Injectable()
export class ReportingRepository {
  constructor(
    private readonly db: DataSource,
    private readonly reader: ReplicaReader,
  ) {}

  /** One page of redemptions, newest first; the offer title in the program's first locale. */
  redemptionsPage(
    institutionId: string,
    f: WindowFilter,
    after: KeysetAfter | null,
    limit: number,
    from: ReadFrom = 'primary',
  ): Promise<RedemptionRow[]> {
    const page = keysetSql({
      alias: 'x',
      after,
      limit,
      params: [institutionId, f.from ?? null, f.to ?? null],
    });
    // Any translation stands in when the program's first locale is missing.
    return this.reader.query(
      from,
      `SELECT x.id, x.created_at, ${page.cursor}, s.status, x.currency,
              x.merchant_funded_amount, x.institution_payout_amount, x.cashback_amount, x.cardholder_token,
              x.offer_id, m.name AS merchant_name, x.transaction_ref, x.purchase_amount, x.goal_round,
              COALESCE(o.translations -> p.supported_locales[1] ->> 'title',
                       (SELECT t.value ->> 'title' FROM jsonb_each(o.translations) t ORDER BY t.key LIMIT 1)) AS title
         FROM redemption x
         JOIN settlement_entry s ON s.redemption_id = x.id
         JOIN offer o ON o.id = x.offer_id
         JOIN merchant m ON m.id = o.merchant_id
         JOIN program p ON p.institution_id = x.institution_id
        WHERE x.institution_id = $1
          AND ($2::timestamptz IS NULL OR x.created_at >= $2)
          AND ($3::timestamptz IS NULL OR x.created_at < $3)
          ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }

  /**
   * One page of settlement entries (of one status, or all), newest first, with what their
   * redemption stored to reconcile them (its primary key: one probe per row of the page).
   */
  settlementsPage(
    institutionId: string,
    f: WindowFilter,
    after: KeysetAfter | null,
    limit: number,
    from: ReadFrom = 'primary',
  ): Promise<SettlementRow[]> {
    const page = keysetSql({
      alias: 'x',
      after,
      limit,
      params: [institutionId, f.status ?? null, f.from ?? null, f.to ?? null],
    });
    return this.reader.query(
      from,
      `SELECT x.*, ${page.cursor}, r.transaction_ref, r.purchase_amount, r.goal_round
         FROM settlement_entry x
         JOIN redemption r ON r.id = x.redemption_id
        WHERE x.institution_id = $1
          AND ($2::text IS NULL OR x.status = $2)
          AND ($3::timestamptz IS NULL OR x.created_at >= $3)
          AND ($4::timestamptz IS NULL OR x.created_at < $4)
          ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }

  /** Redemptions created in [from, to), per currency, the busiest first. */
  redemptionTotals(institutionId: string, from: Date, to: Date): Promise<CurrencyTotalsRow[]> {
    return this.db.query(
      `SELECT currency, count(*)::int AS count, sum(institution_payout_amount)::text AS payout, sum(merchant_funded_amount)::text AS funded
         FROM redemption WHERE institution_id = $1 AND created_at >= $2 AND created_at < $3
        GROUP BY currency ORDER BY count(*) DESC, currency`,
      [institutionId, from, to],
    );
  }

  /** Settlement entries created in [from, to), per status and currency. */
  settlementTotals(institutionId: string, from: Date, to: Date): Promise<CurrencyTotalsRow[]> {
    return this.db.query(
      `SELECT status, currency, count(*)::int AS count, sum(institution_payout_amount)::text AS payout, sum(merchant_funded_amount)::text AS funded
         FROM settlement_entry WHERE institution_id = $1 AND created_at >= $2 AND created_at < $3
        GROUP BY status, currency ORDER BY status, currency`,
      [institutionId, from, to],
    );
  }

  /**
   * Funnel counters: whole UTC hours from engagement_hourly plus the raw events of the partial
   * hours at the edges. Distinct cardholders: the bit count of the OR, chunk by chunk, of the
   * viewer bitmaps of whole UTC days, of the edge days' whole hours, and of the edge hours' raw
   * views (mapped to their cardholder numbers). `hours` and `days` come from splitWindow.
   */
  async funnelCounts(
    institutionId: string,
    start: Date,
    end: Date,
    hours: WindowSplit,
    days: WindowSplit,
    from: ReadFrom = 'primary',
  ): Promise<FunnelCounts> {
    // Each raw edge is its own range (one index range scan each); an OR of the two ranges makes
    // PostgreSQL scan every event of the kind between them.
    const edges = (select: string, kind: string) => `
      SELECT ${select} FROM engagement_event e
       WHERE e.institution_id = $1 AND e.kind = '${kind}' AND e.occurred_at >= $2 AND e.occurred_at < $6
      UNION ALL
      SELECT ${select} FROM engagement_event e
       WHERE e.institution_id = $1 AND e.kind = '${kind}' AND e.occurred_at >= $7 AND e.occurred_at < $3`;
    const count = (kind: string) => `
      (SELECT COALESCE(sum(count), 0) FROM engagement_hourly
        WHERE institution_id = $1 AND kind = '${kind}' AND hour >= $4 AND hour < $5)
      + (SELECT count(*) FROM (${edges('1', kind)}) edge)`;
    const [row] = await this.reader.query<FunnelCounts[]>(
      from,
      `SELECT (${count('widget_view')})::int AS widget_views,
              (SELECT COALESCE(sum(bit_count(b)), 0) FROM (
                 SELECT bit_or(bits) AS b FROM (
                   SELECT chunk, bits FROM engagement_viewers_daily
                    WHERE institution_id = $1
                      AND day >= ($8::timestamptz AT TIME ZONE 'UTC')::date AND day < ($9::timestamptz AT TIME ZONE 'UTC')::date
                   UNION ALL
                   SELECT chunk, bits FROM engagement_viewers_hourly
                    WHERE institution_id = $1 AND ((hour >= $4 AND hour < $8) OR (hour >= $9 AND hour < $5))
                   UNION ALL
                   -- The edge hours' raw views, each looked up in the number index.
                   SELECT n / ${VIEWER_CHUNK_BITS}, set_bit(B'0'::bit(${VIEWER_CHUNK_BITS}), n % ${VIEWER_CHUNK_BITS}, 1)
                     FROM (${edges(
                       `(SELECT c.n FROM engagement_cardholder_number c
                          WHERE c.institution_id = $1 AND c.cardholder_token = e.cardholder_token) AS n`,
                       'widget_view',
                     )}) raw
                 ) x GROUP BY chunk
               ) u)::int AS unique_cardholders,
              (${count('impression')})::int AS offer_impressions,
              (${count('add_success')})::int AS offer_add_successes,
              (SELECT count(*) FROM redemption WHERE institution_id = $1 AND created_at >= $2 AND created_at < $3)::int AS redemptions`,
      [
        institutionId,
        start,
        end,
        hours.wholeFrom,
        hours.wholeTo,
        hours.headTo,
        hours.tailFrom,
        days.wholeFrom,
        days.wholeTo,
      ],
    );
    return row;
  }
}
