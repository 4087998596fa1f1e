import { MigrationInterface, QueryRunner } from 'typeorm';

const DEFINITION = `(institution_id, transaction_ref)`;

/**
 * Drops transaction_ref_idx: every statement that finds a transaction by its reference now goes
 * through transaction_key (one probe, then the row in its month), so each insert and each
 * matching status update paid an index entry in it that no statement reads
 * (docs/performance.md, "Transactions", lists each statement and its index).
 *
 * On an install whose partition move is still under way (TransactionPartitions: the old table
 * live, its copy beside it), the copy's index goes (the old table keeps its unique constraint on
 * the reference until the switch drops it), and the switch function, which renames indexes by
 * name, loses its rename of this one.
 */
export class DropTransactionRefIndex1795732000000 implements MigrationInterface {
  name = 'DropTransactionRefIndex1795732000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        IF to_regprocedure('transaction_partition_switch()') IS NOT NULL THEN
          EXECUTE replace(pg_get_functiondef('transaction_partition_switch()'::regprocedure),
            'ALTER INDEX transaction_partitioned_ref_idx RENAME TO transaction_ref_idx;', '');
        END IF;
        IF to_regclass('transaction_partitioned') IS NOT NULL THEN
          DROP INDEX transaction_partitioned_ref_idx;
        ELSE
          DROP INDEX transaction_ref_idx;
        END IF;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        IF to_regclass('transaction_partitioned') IS NOT NULL THEN
          EXECUTE 'CREATE INDEX transaction_partitioned_ref_idx ON transaction_partitioned ${DEFINITION}';
        ELSE
          EXECUTE 'CREATE INDEX transaction_ref_idx ON transaction ${DEFINITION}';
        END IF;
      END $$;
    `);
  }
}
