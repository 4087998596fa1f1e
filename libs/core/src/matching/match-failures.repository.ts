import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { KeysetAfter, keysetSql, returnedRows } from '@app/db';
import { keysOfIds, transactionByIdSql } from '../ingestion/transaction-store';

export interface MatchFailureRow {
  id: string;
  institution_id: string;
  transaction_ref: string;
  match_error: string;
  match_failed_at: Date;
  received_at: Date;
  cursor_t: string;
}

/**
 * Quarantined transactions (status `match_failed`): the ones matching failed on even alone. They
 * are out of every later pass (matching claims and the relay take `received` rows only) until an
 * operator sends them back.
 */
@Injectable()
export class MatchFailuresRepository {
  constructor(private readonly db: DataSource) {}

  /** Quarantines one transaction still `received`; false when it was processed meanwhile. */
  async markFailed(id: string, reason: string): Promise<boolean> {
    const rows = returnedRows<{ id: string }>(
      await this.db.query(
        `UPDATE transaction t SET status = 'match_failed', match_error = left($2, 500), match_failed_at = now()
          WHERE ${transactionByIdSql('t', '$1::uuid')} AND t.status = 'received' RETURNING t.id`,
        [id, reason],
      ),
    );
    return rows.length > 0;
  }

  /** Newest first (partial index on match_failed_at); the cursor runs over (match_failed_at, id). */
  listPage(
    after: KeysetAfter | null,
    limit: number,
    institutionId?: string,
  ): Promise<MatchFailureRow[]> {
    const page = keysetSql({ alias: 'f', after, limit, params: [institutionId ?? null] });
    return this.db.query(
      `SELECT f.id, f.institution_id, f.transaction_ref, f.match_error, f.match_failed_at, f.received_at, ${page.cursor}
         FROM (SELECT id, institution_id, transaction_ref, match_error, match_failed_at, received_at,
                      match_failed_at AS created_at
                 FROM transaction WHERE match_failed_at IS NOT NULL AND status = 'match_failed') f
        WHERE ($1::uuid IS NULL OR f.institution_id = $1) ${page.and} ${page.orderLimit}`,
      page.params,
    );
  }

  async count(): Promise<number> {
    const [{ n }]: { n: number }[] = await this.db.query(
      `SELECT count(*)::int AS n FROM transaction WHERE match_failed_at IS NOT NULL AND status = 'match_failed'`,
    );
    return n;
  }

  /** Back to `received` (for matching to take again); returns the ids actually reopened. */
  async reopen(ids: readonly string[], m: EntityManager = this.db.manager): Promise<string[]> {
    const rows = returnedRows<{ id: string }>(
      await m.query(
        // Through the keys: their months bound the statement, pruned when it starts.
        `WITH d AS MATERIALIZED (SELECT k.institution_id, k.received_at, k.transaction_id AS id FROM ${keysOfIds()})
         UPDATE transaction t SET status = 'received', match_error = NULL, match_failed_at = NULL
           FROM d
          WHERE t.institution_id = d.institution_id AND t.received_at = d.received_at AND t.id = d.id
            AND t.received_at BETWEEN (SELECT min(received_at) FROM d) AND (SELECT max(received_at) FROM d)
            AND t.status = 'match_failed' RETURNING t.id`,
        [ids],
      ),
    );
    return rows.map((r) => r.id);
  }
}
