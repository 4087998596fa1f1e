import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { maskToken, toMajor } from '@app/domain';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import { FunnelDto, RedemptionItemDto, SettlementEntryDto } from './reporting.dto';

export interface ListFilter {
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
  status?: string;
}

interface RedemptionRow {
  id: string;
  cursor_t: string;
  created_at: Date;
  status: string;
  currency: string;
  merchant_funded_amount: string;
  institution_payout_amount: string;
  cardholder_token: string;
  offer_id: string;
  merchant_name: string;
  title: string | null;
}

interface SettlementRow {
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
}

const CURSOR_T = `to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const DEFAULT_LIMIT = 100;
const FUNNEL_DEFAULT_DAYS = 30;

/**
 * Reporting reads: newest first, `from` inclusive and `to` exclusive, keyset pages over
 * (created_at, id) served by the (institution_id, created_at DESC, id DESC) indexes.
 */
@Injectable()
export class ReportingService {
  constructor(
    private readonly db: DataSource,
    private readonly config: AppConfig,
  ) {}

  async redemptions(institutionId: string, f: ListFilter): Promise<Page<RedemptionItemDto>> {
    const keyset = this.keyset(institutionId, 'redemptions');
    const after = keyset.decode(f.cursor);
    const limit = f.limit ?? DEFAULT_LIMIT;
    checkWindow(f.from, f.to);
    // The offer title is shown in the program's first locale (any translation if that one is missing).
    const rows: RedemptionRow[] = await this.db.query(
      `SELECT x.id, x.created_at, ${CURSOR_T} AS cursor_t, s.status, x.currency,
              x.merchant_funded_amount, x.institution_payout_amount, x.cardholder_token,
              x.offer_id, m.name AS merchant_name,
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
          AND ($4::timestamptz IS NULL OR (x.created_at, x.id) < ($4::timestamptz, $5::uuid))
        ORDER BY x.created_at DESC, x.id DESC
        LIMIT $6`,
      [institutionId, f.from ?? null, f.to ?? null, after?.t ?? null, after?.id ?? null, limit + 1],
    );
    return keyset.page(rows, limit, (r) => ({
      id: r.id,
      created_at: r.created_at.toISOString(),
      status: r.status,
      merchant_funded_amount: toMajor(r.merchant_funded_amount, r.currency),
      institution_payout_amount: toMajor(r.institution_payout_amount, r.currency),
      offer: { id: r.offer_id, title: r.title ?? '', merchant_name: r.merchant_name },
      cardholder_token_masked: maskToken(r.cardholder_token),
    }));
  }

  async settlements(institutionId: string, f: ListFilter): Promise<Page<SettlementEntryDto>> {
    // The status filter is part of the cursor's scope: a cursor of one filter is refused by another.
    const keyset = this.keyset(institutionId, `settlements:${f.status ?? '*'}`);
    const after = keyset.decode(f.cursor);
    const limit = f.limit ?? DEFAULT_LIMIT;
    checkWindow(f.from, f.to);
    const rows: SettlementRow[] = await this.db.query(
      `SELECT x.*, ${CURSOR_T} AS cursor_t
         FROM settlement_entry x
        WHERE x.institution_id = $1
          AND ($2::text IS NULL OR x.status = $2)
          AND ($3::timestamptz IS NULL OR x.created_at >= $3)
          AND ($4::timestamptz IS NULL OR x.created_at < $4)
          AND ($5::timestamptz IS NULL OR (x.created_at, x.id) < ($5::timestamptz, $6::uuid))
        ORDER BY x.created_at DESC, x.id DESC
        LIMIT $7`,
      [
        institutionId,
        f.status ?? null,
        f.from ?? null,
        f.to ?? null,
        after?.t ?? null,
        after?.id ?? null,
        limit + 1,
      ],
    );
    return keyset.page(rows, limit, (r) => ({
      id: r.id,
      redemption_id: r.redemption_id,
      offer_id: r.offer_id,
      merchant_id: r.merchant_id,
      currency: r.currency,
      merchant_funded_amount: toMajor(r.merchant_funded_amount, r.currency),
      service_revenue_amount: toMajor(r.service_revenue_amount, r.currency),
      institution_payout_amount: toMajor(r.institution_payout_amount, r.currency),
      status: r.status,
      created_at: r.created_at.toISOString(),
      settled_at: r.settled_at?.toISOString() ?? null,
      reversed_at: r.reversed_at?.toISOString() ?? null,
    }));
  }

  /**
   * Funnel counters: whole UTC hours from engagement_hourly, the partial hours at the window's
   * edges from the raw events; distinct cardholders over whole UTC days from
   * engagement_daily_cardholder plus the raw views of the partial days (see the roll-up migration).
   */
  async funnel(institutionId: string, from?: string, to?: string): Promise<FunnelDto> {
    const end = to ? new Date(to) : new Date();
    const start = from
      ? new Date(from)
      : new Date(end.getTime() - FUNNEL_DEFAULT_DAYS * 86_400_000);
    if (start >= end) throw ApiError.validation([{ field: 'from', message: 'must be before to' }]);
    const hours = splitWindow(start, end, 3_600_000);
    const days = splitWindow(start, end, 86_400_000);
    const count = (kind: string) => `
      (SELECT COALESCE(sum(count), 0) FROM engagement_hourly
        WHERE institution_id = $1 AND kind = '${kind}' AND hour >= $4 AND hour < $5)
      + (SELECT count(*) FROM engagement_event
          WHERE institution_id = $1 AND kind = '${kind}'
            AND ((occurred_at >= $2 AND occurred_at < $6) OR (occurred_at >= $7 AND occurred_at < $3)))`;
    const [row] = await this.db.query(
      `SELECT (${count('widget_view')})::int AS widget_views,
              (SELECT count(*) FROM (
                 SELECT cardholder_token FROM engagement_daily_cardholder
                  WHERE institution_id = $1 AND day >= $8::date AND day < $9::date
                 UNION
                 SELECT cardholder_token FROM engagement_event
                  WHERE institution_id = $1 AND kind = 'widget_view'
                    AND ((occurred_at >= $2 AND occurred_at < $10) OR (occurred_at >= $11 AND occurred_at < $3))
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
        days.wholeFrom.toISOString().slice(0, 10),
        days.wholeTo.toISOString().slice(0, 10),
        days.headTo,
        days.tailFrom,
      ],
    );
    return { window: { from: start.toISOString(), to: end.toISOString() }, data: row };
  }

  private keyset(institutionId: string, list: string): Keyset {
    return new Keyset(this.config.secretsKey, `${institutionId}:${list}`);
  }
}

/**
 * Splits [start, end) into whole UTC buckets [wholeFrom, wholeTo) and the raw edges
 * [start, headTo) and [tailFrom, end). Without a whole bucket inside, everything is a raw edge.
 */
export function splitWindow(start: Date, end: Date, bucketMs: number) {
  const wholeFrom = new Date(Math.ceil(start.getTime() / bucketMs) * bucketMs);
  const wholeTo = new Date(Math.floor(end.getTime() / bucketMs) * bucketMs);
  if (wholeFrom >= wholeTo) return { wholeFrom: end, wholeTo: end, headTo: end, tailFrom: end };
  return { wholeFrom, wholeTo, headTo: wholeFrom, tailFrom: wholeTo };
}

function checkWindow(from?: string, to?: string): void {
  if (from && to && Date.parse(from) >= Date.parse(to)) {
    throw ApiError.validation([{ field: 'from', message: 'must be before to' }]);
  }
}
