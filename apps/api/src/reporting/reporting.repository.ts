import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Totals of one (status and) currency: amounts as exact decimal text. */
export interface CurrencyTotalsRow {
  currency: string;
  count: number;
  payout: string;
  funded: string;
  status?: string;
}

/** Aggregate reads over redemption and settlement_entry for one institution and window. */
@Injectable()
export class ReportingRepository {
  constructor(private readonly db: DataSource) {}

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
}
