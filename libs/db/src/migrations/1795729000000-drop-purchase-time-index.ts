import { MigrationInterface, QueryRunner } from 'typeorm';

const DEFINITION = `(institution_id, transacted_at) INCLUDE (cardholder_token) WHERE kind IN ('purchase', 'clearing')`;

/**
 * Drops transaction_purchase_time_idx: only the lift report's first eligible-set scan read it, and
 * that set now comes from cardholder_activity (docs/lift.md), so every purchase paid an index entry
 * no statement reads (docs/performance.md, "Transactions", lists each statement and its index).
 *
 * On an install whose partition move is still under way (TransactionPartitions: the old table
 * live, its copy beside it), both tables' indexes go, and the switch function, which renames them
 * by name, is rewritten to rename them only if they exist.
 */
export class DropPurchaseTimeIndex1795729000000 implements MigrationInterface {
  name = 'DropPurchaseTimeIndex1795729000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        IF to_regprocedure('transaction_partition_switch()') IS NOT NULL THEN
          EXECUTE replace(replace(pg_get_functiondef('transaction_partition_switch()'::regprocedure),
            'ALTER INDEX transaction_purchase_time_idx RENAME',
            'ALTER INDEX IF EXISTS transaction_purchase_time_idx RENAME'),
            'ALTER INDEX transaction_partitioned_purchase_time_idx RENAME',
            'ALTER INDEX IF EXISTS transaction_partitioned_purchase_time_idx RENAME');
        END IF;
      END $$;
      DROP INDEX IF EXISTS transaction_partitioned_purchase_time_idx;
      DROP INDEX IF EXISTS transaction_purchase_time_idx;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX transaction_purchase_time_idx ON transaction ${DEFINITION}`);
    await q.query(`
      DO $$ BEGIN
        IF to_regclass('transaction_partitioned') IS NOT NULL THEN
          EXECUTE 'CREATE INDEX transaction_partitioned_purchase_time_idx ON transaction_partitioned ${DEFINITION.replace(/'/g, "''")}';
        END IF;
      END $$;
    `);
  }
}
