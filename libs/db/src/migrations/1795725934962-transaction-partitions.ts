import { MigrationInterface, QueryRunner } from 'typeorm';

/** transaction's columns, in table order (the copy trigger and the move insert `SELECT *`). */
const COLUMNS = `id, institution_id, transaction_ref, cardholder_token, instrument_token, instrument_type,
  merchant_identifier, merchant_identifier_type, merchant_id, mcc, merchant_descriptor, network, amount,
  currency, transacted_at, received_at, source, kind, original_transaction_ref, status, processed_at, channel,
  match_error, match_failed_at, history`;
/** What an update may change (the key columns never change). */
const UPDATABLE = `cardholder_token, instrument_token, instrument_type, merchant_identifier,
  merchant_identifier_type, merchant_id, mcc, merchant_descriptor, network, amount, currency, transacted_at,
  source, kind, original_transaction_ref, status, processed_at, channel, match_error, match_failed_at, history`;

/** The indexes of the partitioned table, named with the prefix they carry until the switch. */
const INDEXES: [string, string][] = [
  ['cardholder_idx', '(institution_id, cardholder_token, merchant_id)'],
  ['match_failed_idx', "(match_failed_at DESC, id DESC) WHERE status = 'match_failed'"],
  [
    'merchant_purchase_idx',
    `(institution_id, merchant_id, transacted_at)
       INCLUDE (cardholder_token, amount, currency, kind, transaction_ref, original_transaction_ref)
       WHERE kind IN ('purchase', 'clearing')`,
  ],
  [
    'purchase_time_idx',
    "(institution_id, transacted_at) INCLUDE (cardholder_token) WHERE kind IN ('purchase', 'clearing')",
  ],
  ['refund_of_idx', "(institution_id, original_transaction_ref) WHERE kind = 'refund'"],
  ['unprocessed_idx', "(received_at) WHERE status = 'received'"],
  // Statements not yet written through transaction_key (docs/performance.md) find a row by its
  // reference or its id with one probe per month.
  ['ref_idx', '(institution_id, transaction_ref)'],
  ['id_idx', '(id)'],
];

/**
 * The second step of partitioning `transaction` (docs/retention.md): the table by UTC month of
 * `received_at`, primary key (institution_id, received_at, id).
 *
 * The rows are copied, not moved: a transaction the service cannot see (a purchase a refund names,
 * a row a claim or a lookup asks for) would be a wrong answer about money, so the old table stays
 * the live `transaction` until every row has its copy. This migration creates the partitioned
 * table beside it (`transaction_partitioned`, months from 25 back, the default retention, through
 * two ahead) and triggers on the old table that write every insert, update and delete to the copy
 * in the same statement; `npm run migrate -- --move-partitions` copies the rows that were there
 * before, in batches (each row locked FOR SHARE while copied, so an update waits for its copy and
 * then reaches it), and ends with the switch (transaction_partition_switch(): under a short
 * exclusive lock the old table is renamed aside and the copy takes its name, indexes and key
 * trigger). On a new install (no rows) the switch happens here.
 *
 * The previous release keeps writing throughout: it inserts without ON CONFLICT on transaction
 * (the key table decides duplicates since TransactionKeys), so the partitioned table needs no
 * unique key of the reference.
 */
export class TransactionPartitions1795725934962 implements MigrationInterface {
  name = 'TransactionPartitions1795725934962';

  async up(q: QueryRunner): Promise<void> {
    const indexes = INDEXES.map(
      ([name, def]) =>
        `CREATE INDEX transaction_partitioned_${name} ON transaction_partitioned ${def};`,
    ).join('\n');
    const renames = INDEXES.map(
      ([name]) => `ALTER INDEX transaction_partitioned_${name} RENAME TO transaction_${name};`,
    ).join('\n');
    await q.query(`
      CREATE TABLE transaction_partitioned (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL CONSTRAINT transaction_institution_id_fkey REFERENCES institution(id),
        transaction_ref text NOT NULL,
        cardholder_token text NOT NULL,
        instrument_token text,
        instrument_type text CONSTRAINT transaction_instrument_type_check CHECK (instrument_type IN ('card', 'wallet', 'account')),
        merchant_identifier text,
        merchant_identifier_type text CONSTRAINT transaction_merchant_identifier_type_check
          CHECK (merchant_identifier_type IN ('card_acceptor', 'pix_key', 'upi_vpa', 'codi', 'psp_merchant_id')),
        merchant_id uuid,
        mcc text,
        merchant_descriptor text,
        network text,
        amount numeric(20,4) NOT NULL,
        currency character(3),
        transacted_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        source text NOT NULL CONSTRAINT transaction_source_check CHECK (source IN ('api', 'batch', 'csv', 'claim')),
        kind text NOT NULL DEFAULT 'purchase' CONSTRAINT transaction_kind_check
          CHECK (kind IN ('purchase', 'refund', 'authorization', 'clearing', 'authorization_reversal')),
        original_transaction_ref text,
        status text NOT NULL DEFAULT 'received' CONSTRAINT transaction_status_check
          CHECK (status IN ('received', 'matched', 'unmatched', 'merchant_unresolved', 'match_failed')),
        processed_at timestamptz,
        channel text CONSTRAINT transaction_channel_check CHECK (channel IN ('in_store', 'online')),
        match_error text,
        match_failed_at timestamptz,
        history boolean NOT NULL DEFAULT false,
        CONSTRAINT transaction_partitioned_pkey PRIMARY KEY (institution_id, received_at, id)
      ) PARTITION BY RANGE (received_at);
      ${indexes}

      DO $$
      DECLARE
        month timestamp;
      BEGIN
        -- The months a row may be kept in at the default retention (25), through two ahead.
        FOR i IN -25..2 LOOP
          month := date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => i);
          EXECUTE format(
            'CREATE TABLE %I PARTITION OF transaction_partitioned FOR VALUES FROM (%L) TO (%L) WITH (parallel_workers = 0)',
            'transaction_p' || to_char(month, 'YYYY_MM'),
            to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00',
            to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
        END LOOP;
      END $$;

      -- Every write to the old table reaches the copy in the same statement.
      CREATE FUNCTION transaction_copy() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO transaction_partitioned (${COLUMNS}) SELECT ${COLUMNS} FROM new_rows ON CONFLICT DO NOTHING;
        ELSIF TG_OP = 'UPDATE' THEN
          UPDATE transaction_partitioned p SET (${UPDATABLE}) = ROW(${UPDATABLE.replace(/(\w+)/g, 'n.$1')})
            FROM new_rows n
           WHERE p.institution_id = n.institution_id AND p.received_at = n.received_at AND p.id = n.id;
        ELSE
          DELETE FROM transaction_partitioned p USING old_rows o
           WHERE p.institution_id = o.institution_id AND p.received_at = o.received_at AND p.id = o.id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER transaction_copy_insert AFTER INSERT ON transaction
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_copy();
      CREATE TRIGGER transaction_copy_update AFTER UPDATE ON transaction
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_copy();
      CREATE TRIGGER transaction_copy_delete AFTER DELETE ON transaction
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_copy();

      -- The switch, once every row has its copy: one home for the migration and the move command.
      CREATE FUNCTION transaction_partition_switch() RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        IF to_regclass('transaction_partitioned') IS NULL THEN
          RETURN false;
        END IF;
        LOCK TABLE transaction IN ACCESS EXCLUSIVE MODE;
        ALTER TABLE transaction RENAME TO transaction_unpartitioned;
        DROP TRIGGER transaction_copy_insert ON transaction_unpartitioned;
        DROP TRIGGER transaction_copy_update ON transaction_unpartitioned;
        DROP TRIGGER transaction_copy_delete ON transaction_unpartitioned;
        DROP TRIGGER transaction_key_fill ON transaction_unpartitioned;
        ALTER TABLE transaction_unpartitioned RENAME CONSTRAINT transaction_pkey TO transaction_unpartitioned_pkey;
        ALTER TABLE transaction_unpartitioned DROP CONSTRAINT transaction_ref_unique;
        ALTER INDEX transaction_cardholder_idx RENAME TO transaction_unpartitioned_cardholder_idx;
        ALTER INDEX transaction_match_failed_idx RENAME TO transaction_unpartitioned_match_failed_idx;
        ALTER INDEX transaction_merchant_purchase_idx RENAME TO transaction_unpartitioned_merchant_purchase_idx;
        ALTER INDEX transaction_purchase_time_idx RENAME TO transaction_unpartitioned_purchase_time_idx;
        ALTER INDEX transaction_refund_of_idx RENAME TO transaction_unpartitioned_refund_of_idx;
        ALTER INDEX transaction_unprocessed_idx RENAME TO transaction_unpartitioned_unprocessed_idx;
        ALTER TABLE transaction_partitioned RENAME TO transaction;
        ALTER TABLE transaction RENAME CONSTRAINT transaction_partitioned_pkey TO transaction_pkey;
        ${renames}
        CREATE TRIGGER transaction_key_fill AFTER INSERT ON transaction
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_key_fill();
        RETURN true;
      END $$;

      DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM transaction) THEN
          PERFORM transaction_partition_switch();
          DROP TABLE transaction_unpartitioned;
        END IF;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        IF to_regclass('transaction_partitioned') IS NOT NULL THEN
          -- Not switched yet: the old table is still the live one.
          DROP TRIGGER transaction_copy_insert ON transaction;
          DROP TRIGGER transaction_copy_update ON transaction;
          DROP TRIGGER transaction_copy_delete ON transaction;
          DROP TABLE transaction_partitioned;
        ELSE
          CREATE TABLE transaction_flat (LIKE transaction INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
          INSERT INTO transaction_flat SELECT * FROM transaction;
          IF to_regclass('transaction_unpartitioned') IS NOT NULL THEN
            DROP TABLE transaction_unpartitioned;
          END IF;
          DROP TABLE transaction;
          ALTER TABLE transaction_flat RENAME TO transaction;
          ALTER TABLE transaction ADD CONSTRAINT transaction_pkey PRIMARY KEY (id),
            ADD CONSTRAINT transaction_ref_unique UNIQUE (institution_id, transaction_ref),
            ADD CONSTRAINT transaction_institution_id_fkey FOREIGN KEY (institution_id) REFERENCES institution(id);
          CREATE INDEX transaction_cardholder_idx ON transaction (institution_id, cardholder_token, merchant_id);
          CREATE INDEX transaction_match_failed_idx ON transaction (match_failed_at DESC, id DESC) WHERE status = 'match_failed';
          CREATE INDEX transaction_merchant_purchase_idx ON transaction (institution_id, merchant_id, transacted_at)
            INCLUDE (cardholder_token, amount, currency, kind, transaction_ref, original_transaction_ref)
            WHERE kind IN ('purchase', 'clearing');
          CREATE INDEX transaction_purchase_time_idx ON transaction (institution_id, transacted_at)
            INCLUDE (cardholder_token) WHERE kind IN ('purchase', 'clearing');
          CREATE INDEX transaction_refund_of_idx ON transaction (institution_id, original_transaction_ref) WHERE kind = 'refund';
          CREATE INDEX transaction_unprocessed_idx ON transaction (received_at) WHERE status = 'received';
          CREATE TRIGGER transaction_key_fill AFTER INSERT ON transaction
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_key_fill();
        END IF;
      END $$;
      DROP FUNCTION transaction_partition_switch();
      DROP FUNCTION transaction_copy();
    `);
  }
}
