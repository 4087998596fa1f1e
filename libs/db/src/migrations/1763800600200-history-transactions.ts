import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Historical transactions: a batch or CSV upload sent with `history` stores the cardholders' past
 * purchases for audiences and personalization; they are never matched. The flag stays on the row
 * (and on the upload, for the worker that imports it). Both columns are metadata-only additions.
 */
export class HistoryTransactions1763800600200 implements MigrationInterface {
  name = 'HistoryTransactions1763800600200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transaction ADD COLUMN history boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE csv_upload ADD COLUMN history boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE csv_upload DROP COLUMN IF EXISTS history`);
    await q.query(`ALTER TABLE transaction DROP COLUMN IF EXISTS history`);
  }
}
