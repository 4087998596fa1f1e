import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface LegalHoldRow {
  institution_id: string;
  reason: string;
  placed_at: Date;
}

/** legal_hold: the institutions whose data retention keeps past its settings. */
@Injectable()
export class LegalHoldsRepository {
  constructor(private readonly db: DataSource) {}

  /** Places (or re-words) a hold; null when the institution does not exist. */
  async place(
    institutionId: string,
    reason: string,
    m: EntityManager = this.db.manager,
  ): Promise<LegalHoldRow | null> {
    const [row] = await m.query<LegalHoldRow[]>(
      `INSERT INTO legal_hold (institution_id, reason)
       SELECT id, $2 FROM institution WHERE id = $1
       ON CONFLICT (institution_id) DO UPDATE SET reason = EXCLUDED.reason
       RETURNING institution_id, reason, placed_at`,
      [institutionId, reason],
    );
    return row ?? null;
  }

  /** Lifts a hold: false when there was none. */
  async lift(institutionId: string, m: EntityManager = this.db.manager): Promise<boolean> {
    const [{ n }] = await m.query<{ n: number }[]>(
      `WITH d AS (DELETE FROM legal_hold WHERE institution_id = $1 RETURNING 1) SELECT count(*)::int AS n FROM d`,
      [institutionId],
    );
    return n > 0;
  }

  /** Every hold, oldest first. */
  list(): Promise<LegalHoldRow[]> {
    return this.db.query(
      `SELECT institution_id, reason, placed_at FROM legal_hold ORDER BY placed_at, institution_id`,
    );
  }
}
