import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Portal (issue 7): a CSV upload keeps the first 1,000 refused lines in `invalid` and counts all
 * of them in `invalid_count` (a 100,000-line file of bad rows must not grow one jsonb value per
 * chunk); the relay finds uploads that were stored but never queued.
 */
export class Portal1763700004000 implements MigrationInterface {
  name = 'Portal1763700004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE csv_upload ADD COLUMN invalid_count integer NOT NULL DEFAULT 0;
      CREATE INDEX csv_upload_pending_idx ON csv_upload (created_at) WHERE status IN ('queued', 'processing');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS csv_upload_pending_idx;
      ALTER TABLE csv_upload DROP COLUMN IF EXISTS invalid_count;
    `);
  }
}
