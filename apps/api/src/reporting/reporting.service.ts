import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { ReadFrom } from '@app/db';
import { DAY_MS, maskToken, toMajor } from '@app/domain';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import { ReportingRepository } from './reporting.repository';
import { FunnelDto, RedemptionItemDto, SettlementEntryDto } from './reporting.dto';

export interface ListFilter {
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
  status?: string;
}

const DEFAULT_LIMIT = 100;
const FUNNEL_DEFAULT_DAYS = 30;

/**
 * Reporting reads: newest first, `from` inclusive and `to` exclusive, keyset pages over
 * (created_at, id) served by the (institution_id, created_at DESC, id DESC) indexes.
 */
@Injectable()
export class ReportingService {
  constructor(
    private readonly repo: ReportingRepository,
    private readonly config: AppConfig,
  ) {}

  async redemptions(
    institutionId: string,
    f: ListFilter,
    from: ReadFrom = 'primary',
  ): Promise<Page<RedemptionItemDto>> {
    const keyset = this.keyset(institutionId, 'redemptions');
    const after = keyset.decode(f.cursor);
    const limit = f.limit ?? DEFAULT_LIMIT;
    checkWindow(f.from, f.to);
    const rows = await this.repo.redemptionsPage(institutionId, f, after, limit, from);
    return keyset.page(rows, limit, (r) => ({
      id: r.id,
      created_at: r.created_at.toISOString(),
      status: r.status,
      currency: r.currency,
      merchant_funded_amount: toMajor(r.merchant_funded_amount, r.currency),
      institution_payout_amount: toMajor(r.institution_payout_amount, r.currency),
      cashback_amount: toMajor(r.cashback_amount, r.currency),
      offer: { id: r.offer_id, title: r.title ?? '', merchant_name: r.merchant_name },
      cardholder_token_masked: maskToken(r.cardholder_token),
      transaction_ref: r.transaction_ref,
      purchase_amount: toMajor(r.purchase_amount, r.currency),
      goal_round: r.goal_round,
    }));
  }

  async settlements(
    institutionId: string,
    f: ListFilter,
    from: ReadFrom = 'primary',
  ): Promise<Page<SettlementEntryDto>> {
    // The status filter is part of the cursor's scope: a cursor of one filter is refused by another.
    const keyset = this.keyset(institutionId, `settlements:${f.status ?? '*'}`);
    const after = keyset.decode(f.cursor);
    const limit = f.limit ?? DEFAULT_LIMIT;
    checkWindow(f.from, f.to);
    const rows = await this.repo.settlementsPage(institutionId, f, after, limit, from);
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
      transaction_ref: r.transaction_ref,
      purchase_amount: toMajor(r.purchase_amount, r.currency),
      goal_round: r.goal_round,
    }));
  }

  /**
   * Funnel counters: whole UTC hours from engagement_hourly, the partial hours at the window's
   * edges from the raw events; distinct cardholders from exact per-day and per-hour bitmaps of
   * cardholder numbers plus the raw views of the edge hours (see the viewer-bitmaps migration).
   */
  async funnel(
    institutionId: string,
    from?: string,
    to?: string,
    readFrom: ReadFrom = 'primary',
  ): Promise<FunnelDto> {
    const end = to ? new Date(to) : new Date();
    const start = from ? new Date(from) : new Date(end.getTime() - FUNNEL_DEFAULT_DAYS * DAY_MS);
    if (start >= end) throw ApiError.validation([{ field: 'from', message: 'must be before to' }]);
    const hours = splitWindow(start, end, 3_600_000);
    const days = splitWindow(start, end, DAY_MS);
    const row = await this.repo.funnelCounts(institutionId, start, end, hours, days, readFrom);
    return { window: { from: start.toISOString(), to: end.toISOString() }, data: row };
  }

  private keyset(institutionId: string, list: string): Keyset {
    return new Keyset(this.config.keys, `${institutionId}:${list}`);
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
