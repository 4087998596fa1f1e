import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Quarantine for poison transactions: `match_failed` with the reason and when, for the ones
 * matching failed on even alone. The partial index serves the operators' list and the metric.
 */
export class MatchFailed1763800600100 implements MigrationInterface {
  name = 'MatchFailed1763800600100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE transaction
        DROP CONSTRAINT transaction_status_check,
        ADD CONSTRAINT transaction_status_check
          CHECK (status IN ('received', 'matched', 'unmatched', 'merchant_unresolved', 'match_failed')),
        ADD COLUMN match_error text,
        ADD COLUMN match_failed_at timestamptz`);
    await q.query(`
      CREATE INDEX transaction_match_failed_idx ON transaction (match_failed_at DESC, id DESC)
        WHERE status = 'match_failed'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS transaction_match_failed_idx`);
    await q.query(`UPDATE transaction SET status = 'received' WHERE status = 'match_failed'`);
    await q.query(`
      ALTER TABLE transaction
        DROP COLUMN IF EXISTS match_error,
        DROP COLUMN IF EXISTS match_failed_at,
        DROP CONSTRAINT transaction_status_check,
        ADD CONSTRAINT transaction_status_check
          CHECK (status IN ('received', 'matched', 'unmatched', 'merchant_unresolved'))`);
  }
}
