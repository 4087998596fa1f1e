import { MigrationInterface, QueryRunner } from 'typeorm';

/** The key trigger's function before this migration (restored by down). */
const FILL_BEFORE = `
  CREATE OR REPLACE FUNCTION transaction_key_fill() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO transaction_key (institution_id, transaction_ref, transaction_id, received_at)
    SELECT n.institution_id, n.transaction_ref, n.id, n.received_at FROM new_rows n
     WHERE NOT EXISTS (SELECT 1 FROM transaction_key k
                        WHERE k.institution_id = n.institution_id AND k.transaction_ref = n.transaction_ref
                          AND k.transaction_id = n.id);
    RETURN NULL;
  END $$`;

/**
 * transaction_key.refund_of: a refund's key names the reference the refund names
 * (original_transaction_ref), with a partial index of those keys. The refunds of a purchase (its
 * net amount, in every matching chunk) are then one probe of that small index and one read of each
 * refund in its month, instead of a probe of every month's refund index (28 months kept by
 * default: most of a chunk claim's execution).
 *
 * The key trigger (which already adds the key of a row inserted without one) sets it for every
 * refund inserted, whoever inserts it, so the rule has one home and a process of the previous
 * release writes it too. The table is locked first, so that no refund can be inserted between the
 * backfill's snapshot and the new trigger function.
 *
 * The trigger's test for rows without a key becomes a probe per row: planned as an anti-join, a
 * batch of 1,000 rows read and hashed the whole key table (102 ms at 94,000 keys, on every batch
 * the service inserts, whose keys are all there) until the table grew past what a thousand
 * probes cost.
 */
export class RefundKeys1795731000000 implements MigrationInterface {
  name = 'RefundKeys1795731000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      LOCK TABLE transaction_key IN SHARE ROW EXCLUSIVE MODE;
      ALTER TABLE transaction_key ADD COLUMN refund_of text;
      CREATE OR REPLACE FUNCTION transaction_key_fill() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- One probe per row (OFFSET 0 keeps the test a subplan): as an anti-join, a batch of 1,000
        -- rows hashed the whole key table, every batch, while it held under ~500,000 keys.
        INSERT INTO transaction_key (institution_id, transaction_ref, transaction_id, received_at)
        SELECT n.institution_id, n.transaction_ref, n.id, n.received_at FROM new_rows n
         WHERE NOT EXISTS (SELECT 1 FROM transaction_key k
                            WHERE k.institution_id = n.institution_id AND k.transaction_ref = n.transaction_ref
                              AND k.transaction_id = n.id OFFSET 0);
        -- A refund's key (written just above, or by the insert before its row) names what it refunds.
        UPDATE transaction_key k SET refund_of = n.original_transaction_ref
          FROM new_rows n
         WHERE n.kind = 'refund' AND n.original_transaction_ref IS NOT NULL
           AND k.institution_id = n.institution_id AND k.transaction_ref = n.transaction_ref
           AND k.transaction_id = n.id AND k.refund_of IS NULL;
        RETURN NULL;
      END $$;
      UPDATE transaction_key k SET refund_of = t.original_transaction_ref
        FROM transaction t
       WHERE t.kind = 'refund' AND t.original_transaction_ref IS NOT NULL
         AND k.institution_id = t.institution_id AND k.transaction_ref = t.transaction_ref
         AND k.transaction_id = t.id;
      CREATE INDEX transaction_key_refund_of_idx ON transaction_key (institution_id, refund_of)
        WHERE refund_of IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(FILL_BEFORE);
    await q.query(`ALTER TABLE transaction_key DROP COLUMN refund_of`);
  }
}
