import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EngagementKind } from '@app/domain';

/** Funnel events in columns, as they go to PostgreSQL: one array per column. */
export interface EngagementColumns {
  institutionId: string[];
  kind: EngagementKind[];
  cardholderToken: string[];
  offerId: (string | null)[];
  occurredAt: string[];
}

/** The insert of engagement_event (the funnel's widget views, impressions and add successes). */
@Injectable()
export class EngagementEventsRepository {
  constructor(private readonly db: DataSource) {}

  /** False until the connection is up (and after it closed). */
  get ready(): boolean {
    return this.db.isInitialized;
  }

  /** One multi-row INSERT … SELECT FROM unnest(...) for the whole batch. */
  async insert(c: EngagementColumns): Promise<void> {
    await this.db.query(
      `INSERT INTO engagement_event (institution_id, kind, cardholder_token, offer_id, occurred_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::timestamptz[])`,
      [c.institutionId, c.kind, c.cardholderToken, c.offerId, c.occurredAt],
    );
  }
}
