import { MigrationInterface, QueryRunner } from 'typeorm';

const DEFINITION = `(institution_id, transacted_at) INCLUDE (cardholder_token) WHERE kind IN ('purchase', 'clearing')`;

/**
 * Drops transaction_purchase_time_idx: only the lift report's first eligible-set scan read it, and
 * that set now comes from cardholder_activity (docs/lift.md), so every purchase paid an index entry
 * no statement reads (docs/performance.md, "Transactions", lists each statement and its index).
 *
 * On an install whose partition move is still under way (TransactionPartitions: the old table
 * live, its copy beside it), both tables' indexes go, and the switch function, which renames them
 * by name, loses its two renames of them.
 */
export class DropPurchaseTimeIndex1795729000000 implements MigrationInterface {
  name = 'DropPurchaseTimeIndex1795729000000';

  async up(q: QueryRunner): Promise<void> {
    // The move's switch renames both tables' indexes by name: its two lines for this one go.
    await q.query(`
      DO $$ BEGIN
        IF to_regprocedure('transaction_partition_switch()') IS NOT NULL THEN
          EXECUTE replace(replace(pg_get_functiondef('transaction_partition_switch()'::regprocedure),
            'ALTER INDEX transaction_purchase_time_idx RENAME TO transaction_unpartitioned_purchase_time_idx;', ''),
            'ALTER INDEX transaction_partitioned_purchase_time_idx RENAME TO transaction_purchase_time_idx;', '');
        END IF;
        IF to_regclass('transaction_partitioned') IS NOT NULL THEN
          DROP INDEX transaction_partitioned_purchase_time_idx;
        END IF;
        DROP INDEX transaction_purchase_time_idx;
      END $$;
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
