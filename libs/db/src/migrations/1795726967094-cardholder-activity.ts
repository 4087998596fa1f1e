import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * cardholder_activity: the (institution, cardholder, UTC month) triples with at least one purchase
 * (kinds purchase and clearing), so that the lift report reads its eligible cardholders from a few
 * rows each instead of every purchase (docs/lift.md). Filled here from the stored transactions
 * (one pass over the purchases; the transaction store keeps it from then on, insert-only, in the
 * statement that inserts them). Keyed by (institution, cardholder, month): the report reads an
 * institution's rows in cardholder order, index-only, and the erasure finds a cardholder's rows by
 * the key's prefix.
 */
export class CardholderActivity1795726967094 implements MigrationInterface {
  name = 'CardholderActivity1795726967094';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE cardholder_activity (
        institution_id uuid NOT NULL,
        cardholder_token text NOT NULL,
        month date NOT NULL,
        CONSTRAINT cardholder_activity_pkey PRIMARY KEY (institution_id, cardholder_token, month),
        CONSTRAINT cardholder_activity_institution_id_fkey FOREIGN KEY (institution_id) REFERENCES institution(id)
      )`);
    await q.query(`
      INSERT INTO cardholder_activity (institution_id, cardholder_token, month)
      SELECT DISTINCT institution_id, cardholder_token, date_trunc('month', transacted_at AT TIME ZONE 'UTC')::date
        FROM transaction
       WHERE kind IN ('purchase', 'clearing')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS cardholder_activity`);
  }
}
