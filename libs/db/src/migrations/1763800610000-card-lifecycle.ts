import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The card lifecycle (docs/transactions.md): transactions of kind `authorization`, `clearing` and
 * `authorization_reversal`; the program's `reward_on` and `authorization_expiry_days` (NULL = the
 * defaults, `clearing` and 7); and card_chain, the state of each chain (authorization → clearing →
 * refunds) keyed by (institution, authorization ref), locked by matching and by the expiry job so
 * that concurrent chunks never reward one chain twice.
 * - rewarded_transaction_id: the record whose redemption is the chain's (authorization or clearing);
 *   settlement reads it (a redemption made at authorization settles only once the chain cleared).
 * - expires_at: the authorization's transacted_at + authorization_expiry_days, while `authorized`.
 */
export class CardLifecycle1763800610000 implements MigrationInterface {
  name = 'CardLifecycle1763800610000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE transaction
        DROP CONSTRAINT transaction_kind_check,
        ADD CONSTRAINT transaction_kind_check
          CHECK (kind IN ('purchase', 'refund', 'authorization', 'clearing', 'authorization_reversal'))`);
    await q.query(`
      ALTER TABLE program
        ADD COLUMN reward_on text CHECK (reward_on IN ('clearing', 'authorization')),
        ADD COLUMN authorization_expiry_days int CHECK (authorization_expiry_days BETWEEN 1 AND 45)`);
    await q.query(`
      CREATE TABLE card_chain (
        institution_id uuid NOT NULL REFERENCES institution(id),
        authorization_ref text NOT NULL,
        state text NOT NULL DEFAULT 'none'
          CHECK (state IN ('none', 'authorized', 'cleared', 'voided', 'expired')),
        authorization_amount numeric(20, 4),
        clearing_ref text,
        cleared_amount numeric(20, 4),
        cleared_at timestamptz,
        rewarded_transaction_id uuid REFERENCES transaction(id),
        expires_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (institution_id, authorization_ref)
      )`);
    await q.query(`
      CREATE INDEX card_chain_expiry_idx ON card_chain (expires_at) WHERE state = 'authorized'`);
    await q.query(`
      CREATE UNIQUE INDEX card_chain_rewarded_idx ON card_chain (rewarded_transaction_id)
        WHERE rewarded_transaction_id IS NOT NULL`);
    // A refund may name a clearing: it is found by (institution, clearing ref).
    await q.query(`
      CREATE INDEX card_chain_clearing_idx ON card_chain (institution_id, clearing_ref)
        WHERE clearing_ref IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS card_chain`);
    await q.query(`
      ALTER TABLE program DROP COLUMN IF EXISTS reward_on, DROP COLUMN IF EXISTS authorization_expiry_days`);
    // Voids carry no redemption; authorizations and clearings may: they become purchases.
    await q.query(`DELETE FROM transaction WHERE kind = 'authorization_reversal'`);
    await q.query(
      `UPDATE transaction SET kind = 'purchase', original_transaction_ref = NULL
        WHERE kind IN ('authorization', 'clearing')`,
    );
    await q.query(`
      ALTER TABLE transaction
        DROP CONSTRAINT transaction_kind_check,
        ADD CONSTRAINT transaction_kind_check CHECK (kind IN ('purchase', 'refund'))`);
  }
}
