import { MigrationInterface, QueryRunner } from 'typeorm';

const FILL_REF = (lookup: string) => `
  CREATE OR REPLACE FUNCTION redemption_fill_transaction_ref() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    t record;
  BEGIN
    ${lookup}
    IF FOUND THEN
      NEW.transaction_ref := COALESCE(NEW.transaction_ref, t.transaction_ref);
      NEW.transacted_at := COALESCE(NEW.transacted_at, t.transacted_at);
    END IF;
    RETURN NEW;
  END $$`;

/**
 * Drops transaction_id_idx: every statement that finds a transaction by its id now goes through
 * transaction_key (transaction_key_id_idx gives the tenant and the month, then the primary key in
 * that month), or by the primary key itself (matching's final statuses), so each insert and each
 * matching status update paid an index entry that no statement reads (docs/performance.md,
 * "Transactions"). The redemption trigger that fills a redemption's reference and purchase time
 * (when its writer leaves them out) reads the transaction through its key too.
 *
 * On an install whose partition move is still under way (TransactionPartitions), the copy's index
 * goes (the old table keeps its primary key on id until the switch drops the table), and the
 * switch function loses its rename of this one.
 */
export class DropTransactionIdIndex1795733000000 implements MigrationInterface {
  name = 'DropTransactionIdIndex1795733000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      FILL_REF(`SELECT x.transaction_ref, x.transacted_at INTO t
      FROM transaction_key k
      JOIN transaction x ON x.institution_id = k.institution_id AND x.received_at = k.received_at AND x.id = k.transaction_id
     WHERE k.transaction_id = NEW.transaction_id;`),
    );
    await q.query(`
      DO $$ BEGIN
        IF to_regprocedure('transaction_partition_switch()') IS NOT NULL THEN
          EXECUTE replace(pg_get_functiondef('transaction_partition_switch()'::regprocedure),
            'ALTER INDEX transaction_partitioned_id_idx RENAME TO transaction_id_idx;', '');
        END IF;
        IF to_regclass('transaction_partitioned') IS NOT NULL THEN
          DROP INDEX transaction_partitioned_id_idx;
        ELSE
          DROP INDEX transaction_id_idx;
        END IF;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        IF to_regclass('transaction_partitioned') IS NOT NULL THEN
          EXECUTE 'CREATE INDEX transaction_partitioned_id_idx ON transaction_partitioned (id)';
        ELSE
          EXECUTE 'CREATE INDEX transaction_id_idx ON transaction (id)';
        END IF;
      END $$;
    `);
    await q.query(
      FILL_REF(
        `SELECT x.transaction_ref, x.transacted_at INTO t FROM transaction x WHERE x.id = NEW.transaction_id;`,
      ),
    );
  }
}
