import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The first of the two steps that partition `transaction` (docs/retention.md): what must hold
 * before a month of transactions can be dropped.
 *
 * - transaction_key (institution_id, transaction_ref → transaction_id, received_at): decides
 *   duplicates for ever (the published interface: a reference is unique per institution with no
 *   time bound) and finds a transaction's month (received_at, the partition key) from its
 *   reference or its id. Never partitioned, never dropped by retention. The code inserts the key
 *   first (ON CONFLICT DO NOTHING decides the duplicate) and the transaction with the key's id.
 *   A statement trigger adds the key of every row inserted without one (the previous release,
 *   running beside this one during a deploy; SQL written by hand), and its primary key refuses a
 *   second row of a reference so written.
 * - Money records lose their foreign keys to transaction (redemption, goal_contribution, and
 *   card_chain's rewarded record): a partition can be dropped under them. What they need of the
 *   purchase is stored on them: redemption.transaction_ref and purchase_amount were, transacted_at
 *   is added here (backfilled; the previous release's inserts are filled by the trigger that
 *   already fills transaction_ref); the merchant is the offer's and the settlement entry's.
 * - The statement booking trigger reads the reference from the redemption, not the transaction.
 */
export class TransactionKeys1795722355140 implements MigrationInterface {
  name = 'TransactionKeys1795722355140';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE transaction_key (
        institution_id uuid NOT NULL,
        transaction_ref text NOT NULL,
        transaction_id uuid NOT NULL,
        received_at timestamptz NOT NULL,
        CONSTRAINT transaction_key_pkey PRIMARY KEY (institution_id, transaction_ref)
      );
      CREATE FUNCTION transaction_key_fill() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO transaction_key (institution_id, transaction_ref, transaction_id, received_at)
        SELECT n.institution_id, n.transaction_ref, n.id, n.received_at FROM new_rows n
         WHERE NOT EXISTS (SELECT 1 FROM transaction_key k
                            WHERE k.institution_id = n.institution_id AND k.transaction_ref = n.transaction_ref
                              AND k.transaction_id = n.id);
        RETURN NULL;
      END $$;
      CREATE TRIGGER transaction_key_fill AFTER INSERT ON transaction
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_key_fill();
      -- After the trigger (whose lock holds inserts back until this migration commits), so that
      -- no row can be written between the backfill's snapshot and the trigger without its key.
      INSERT INTO transaction_key (institution_id, transaction_ref, transaction_id, received_at)
      SELECT institution_id, transaction_ref, id, received_at FROM transaction;
      CREATE INDEX transaction_key_id_idx ON transaction_key (transaction_id) INCLUDE (institution_id, received_at);

      ALTER TABLE redemption DROP CONSTRAINT redemption_transaction_id_fkey;
      ALTER TABLE goal_contribution DROP CONSTRAINT goal_contribution_transaction_id_fkey;
      ALTER TABLE card_chain DROP CONSTRAINT card_chain_rewarded_transaction_id_fkey;

      ALTER TABLE redemption ADD COLUMN transacted_at timestamptz;
      UPDATE redemption r SET transacted_at = t.transacted_at FROM transaction t WHERE t.id = r.transaction_id;
      CREATE OR REPLACE FUNCTION redemption_fill_transaction_ref() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        t record;
      BEGIN
        SELECT x.transaction_ref, x.transacted_at INTO t FROM transaction x WHERE x.id = NEW.transaction_id;
        IF FOUND THEN
          NEW.transaction_ref := COALESCE(NEW.transaction_ref, t.transaction_ref);
          NEW.transacted_at := COALESCE(NEW.transacted_at, t.transacted_at);
        END IF;
        RETURN NEW;
      END $$;
      DROP TRIGGER redemption_fill_transaction_ref ON redemption;
      CREATE TRIGGER redemption_fill_transaction_ref BEFORE INSERT ON redemption
        FOR EACH ROW WHEN (NEW.transaction_ref IS NULL OR NEW.transacted_at IS NULL)
        EXECUTE FUNCTION redemption_fill_transaction_ref();
      ALTER TABLE redemption ALTER COLUMN transacted_at SET NOT NULL;
    `);
    // The booking trigger's function, with the reference read from the redemption.
    const [{ src }] = await q.query(
      `SELECT pg_get_functiondef('statement_book_movements'::regproc) AS src`,
    );
    const next = (src as string)
      .replace(
        /t\.transaction_ref, e\.merchant_funded_amount/,
        'r.transaction_ref, e.merchant_funded_amount',
      )
      .replace(/\n\s*JOIN transaction t ON t\.id = r\.transaction_id/, '');
    if (next === src || /JOIN transaction t/.test(next))
      throw new Error('statement_book_movements: the transaction join was not found');
    await q.query(next);
  }

  async down(q: QueryRunner): Promise<void> {
    const [{ src }] = await q.query(
      `SELECT pg_get_functiondef('statement_book_movements'::regproc) AS src`,
    );
    await q.query(
      (src as string)
        .replace(
          /r\.transaction_ref, e\.merchant_funded_amount/,
          't.transaction_ref, e.merchant_funded_amount',
        )
        .replace(
          /(\n(\s*)JOIN redemption r ON r\.id = e\.redemption_id)/,
          '$1\n$2JOIN transaction t ON t.id = r.transaction_id',
        ),
    );
    await q.query(`
      DROP TRIGGER redemption_fill_transaction_ref ON redemption;
      CREATE OR REPLACE FUNCTION redemption_fill_transaction_ref() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.transaction_ref IS NULL THEN
          SELECT t.transaction_ref INTO NEW.transaction_ref FROM transaction t WHERE t.id = NEW.transaction_id;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER redemption_fill_transaction_ref BEFORE INSERT ON redemption
        FOR EACH ROW WHEN (NEW.transaction_ref IS NULL) EXECUTE FUNCTION redemption_fill_transaction_ref();
      ALTER TABLE redemption DROP COLUMN transacted_at;
      ALTER TABLE card_chain ADD CONSTRAINT card_chain_rewarded_transaction_id_fkey
        FOREIGN KEY (rewarded_transaction_id) REFERENCES transaction(id);
      ALTER TABLE goal_contribution ADD CONSTRAINT goal_contribution_transaction_id_fkey
        FOREIGN KEY (transaction_id) REFERENCES transaction(id);
      ALTER TABLE redemption ADD CONSTRAINT redemption_transaction_id_fkey
        FOREIGN KEY (transaction_id) REFERENCES transaction(id);
      DROP TRIGGER transaction_key_fill ON transaction;
      DROP FUNCTION transaction_key_fill();
      DROP TABLE transaction_key;
    `);
  }
}
