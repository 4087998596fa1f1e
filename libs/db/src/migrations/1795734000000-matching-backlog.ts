import { MigrationInterface, QueryRunner } from 'typeorm';

/** The backlog triggers, on `table` (the live transaction table). */
const backlogTriggers = (table: string) => `
  CREATE TRIGGER transaction_backlog_insert AFTER INSERT ON ${table}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_backlog_sync();
  CREATE TRIGGER transaction_backlog_update AFTER UPDATE ON ${table}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_backlog_sync();
  CREATE TRIGGER transaction_backlog_delete AFTER DELETE ON ${table}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_backlog_sync();`;

/** The key trigger's creation in the partition switch, after which the backlog's goes. */
const SWITCH_KEY_TRIGGER = `CREATE TRIGGER transaction_key_fill AFTER INSERT ON transaction
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_key_fill();`;

/** What the partition switch does after the key trigger since this migration: the backlog's move. */
const SWITCH_BACKLOG = `
DROP TRIGGER transaction_backlog_insert ON transaction_unpartitioned;
DROP TRIGGER transaction_backlog_update ON transaction_unpartitioned;
DROP TRIGGER transaction_backlog_delete ON transaction_unpartitioned;${backlogTriggers('transaction')}`;

/** What transaction's months are created with since this migration (PartitionsRepository.create). */
const FILLFACTOR = 50;

/**
 * Matching's status write becomes a HOT update (docs/performance.md, "Matching writes a
 * transaction's outcome in place"): before, it added a new entry to every index of the month
 * (about 790 bytes of WAL and six B-tree insertions per transaction matched) because it changed
 * columns indexes depend on. Three things move off those columns:
 *
 * - The backlog of transactions not yet matched, which the relay reads (formerly the partial index
 *   `transaction_unprocessed_idx`, `WHERE status = 'received'`), is the table
 *   `transaction_backlog`, kept by statement triggers on transaction: a row inserted `received`
 *   enters it, a row updated out of `received` (or deleted) leaves it, whoever writes, in the same
 *   statement. A month dropped by retention leaves its rows behind; the relay deletes those.
 * - `transaction_match_failed_idx` is partial on `match_failed_at IS NOT NULL` instead of the
 *   status (the two are set and cleared together).
 * - (In code) the merchant is resolved when the row is inserted, so matching writes back the same
 *   merchant_id.
 *
 * And transaction's months keep half of each page free (fillfactor 50), so the new version of a
 * row fits on its page in the transaction that matched it: existing months are altered (pages
 * written from now on), months created later get it at creation.
 *
 * On an install whose partition move is still under way (TransactionPartitions), the triggers go
 * on the live (old) table and the switch function moves them to the partitioned one with the key
 * trigger; the copy's indexes change, the old table's stay until it is dropped.
 */
export class MatchingBacklog1795734000000 implements MigrationInterface {
  name = 'MatchingBacklog1795734000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      LOCK TABLE transaction IN SHARE ROW EXCLUSIVE MODE;
      CREATE TABLE transaction_backlog (
        received_at timestamptz NOT NULL,
        id uuid NOT NULL,
        institution_id uuid NOT NULL,
        -- Oldest first for the relay; the tenant in the key too (a distribution by institution).
        CONSTRAINT transaction_backlog_pkey PRIMARY KEY (received_at, id, institution_id)
      );
      -- Statement triggers with transition tables: one set statement per insert or update,
      -- however many rows. Nested loops only: plpgsql keeps each statement's first plan, and a
      -- hash join planned for a small backlog would read the whole backlog on every later call.
      CREATE FUNCTION transaction_backlog_sync() RETURNS trigger LANGUAGE plpgsql
        SET enable_hashjoin = off SET enable_mergejoin = off AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          DELETE FROM transaction_backlog b USING old_rows o
           WHERE o.status = 'received' AND b.received_at = o.received_at AND b.id = o.id;
        ELSIF TG_OP = 'INSERT' THEN
          INSERT INTO transaction_backlog (received_at, id, institution_id)
          SELECT n.received_at, n.id, n.institution_id FROM new_rows n WHERE n.status = 'received';
        ELSE
          DELETE FROM transaction_backlog b USING new_rows n
           WHERE n.status <> 'received' AND b.received_at = n.received_at AND b.id = n.id;
          INSERT INTO transaction_backlog (received_at, id, institution_id)
          SELECT n.received_at, n.id, n.institution_id FROM new_rows n WHERE n.status = 'received'
          ON CONFLICT DO NOTHING;
        END IF;
        RETURN NULL;
      END $$;
      ${backlogTriggers('transaction')}
      INSERT INTO transaction_backlog (received_at, id, institution_id)
      SELECT received_at, id, institution_id FROM transaction WHERE status = 'received';

      DO $$
      DECLARE
        copying boolean := to_regclass('transaction_partitioned') IS NOT NULL;
        parent text := CASE WHEN copying THEN 'transaction_partitioned' ELSE 'transaction' END;
        month record;
      BEGIN
        IF copying THEN
          EXECUTE replace(replace(pg_get_functiondef('transaction_partition_switch()'::regprocedure),
            'ALTER INDEX transaction_partitioned_unprocessed_idx RENAME TO transaction_unprocessed_idx;', ''),
            ${quote(SWITCH_KEY_TRIGGER)},
            ${quote(SWITCH_KEY_TRIGGER + SWITCH_BACKLOG)});
          DROP INDEX transaction_partitioned_unprocessed_idx;
          DROP INDEX transaction_partitioned_match_failed_idx;
          CREATE INDEX transaction_partitioned_match_failed_idx ON transaction_partitioned
            (match_failed_at DESC, id DESC) WHERE match_failed_at IS NOT NULL;
        ELSE
          DROP INDEX transaction_unprocessed_idx;
          DROP INDEX transaction_match_failed_idx;
          CREATE INDEX transaction_match_failed_idx ON transaction
            (match_failed_at DESC, id DESC) WHERE match_failed_at IS NOT NULL;
        END IF;
        FOR month IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                      WHERE i.inhparent = parent::regclass LOOP
          EXECUTE format('ALTER TABLE %I SET (fillfactor = ${FILLFACTOR})', month.relname);
        END LOOP;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      DECLARE
        copying boolean := to_regclass('transaction_partitioned') IS NOT NULL;
        parent text := CASE WHEN copying THEN 'transaction_partitioned' ELSE 'transaction' END;
        prefix text := CASE WHEN copying THEN 'transaction_partitioned_' ELSE 'transaction_' END;
        month record;
      BEGIN
        IF copying THEN
          EXECUTE replace(replace(pg_get_functiondef('transaction_partition_switch()'::regprocedure),
            ${quote(SWITCH_BACKLOG)}, ''),
            'ALTER TABLE transaction_partitioned RENAME TO transaction;',
            'ALTER INDEX transaction_partitioned_unprocessed_idx RENAME TO transaction_unprocessed_idx;
        ALTER TABLE transaction_partitioned RENAME TO transaction;');
        END IF;
        EXECUTE format('DROP INDEX %I', prefix || 'match_failed_idx');
        EXECUTE format('CREATE INDEX %I ON %I (match_failed_at DESC, id DESC) WHERE status = %L',
                       prefix || 'match_failed_idx', parent, 'match_failed');
        EXECUTE format('CREATE INDEX %I ON %I (received_at) WHERE status = %L',
                       prefix || 'unprocessed_idx', parent, 'received');
        FOR month IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                      WHERE i.inhparent = parent::regclass LOOP
          EXECUTE format('ALTER TABLE %I RESET (fillfactor)', month.relname);
        END LOOP;
      END $$;
      DROP TRIGGER transaction_backlog_insert ON transaction;
      DROP TRIGGER transaction_backlog_update ON transaction;
      DROP TRIGGER transaction_backlog_delete ON transaction;
      DROP FUNCTION transaction_backlog_sync();
      DROP TABLE transaction_backlog;
    `);
  }
}

/** A SQL string literal of `s`. */
function quote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
