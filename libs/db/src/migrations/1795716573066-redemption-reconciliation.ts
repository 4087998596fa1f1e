import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a redemption's events and reporting rows need to be reconciled alone (docs/webhooks.md),
 * stored on the redemption when it is written or reversed, never read from the transaction
 * afterwards (transactions will be partitioned and dropped by retention):
 *
 * - transaction_ref: the rewarded record's reference (the purchase's; a card chain's decided
 *   record's). NOT NULL from now on: the previous release, still running during a deploy, inserts
 *   redemptions without it, so a BEFORE INSERT trigger fills it from the transaction when it is
 *   missing (the code of this release always sends it; a later release drops the trigger).
 * - reversal_reason and reversal_transaction_ref: why a reversed redemption was reversed and the
 *   record that caused it (null for an expiry).
 *
 * purchase_amount, merchant_funded_amount, currency and goal_round were stored already.
 *
 * Backfill: every redemption's transaction_ref; for redemptions already reversed, the reason where
 * the stored records still tell it (a goal round; a card chain voided, expired or changed by its
 * clearing; a refund naming the purchase or its chain), the latest such record's reference, and
 * NULL where nothing tells it.
 */
export class RedemptionReconciliation1795716573066 implements MigrationInterface {
  name = 'RedemptionReconciliation1795716573066';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE redemption
        ADD COLUMN transaction_ref text,
        ADD COLUMN reversal_reason text CONSTRAINT redemption_reversal_reason_check CHECK (
          reversal_reason IN ('refund', 'void', 'authorization_expired', 'clearing_changed', 'goal_round_below_target')),
        ADD COLUMN reversal_transaction_ref text;

      UPDATE redemption r SET transaction_ref = t.transaction_ref
        FROM transaction t WHERE t.id = r.transaction_id AND r.transaction_ref IS NULL;

      CREATE FUNCTION redemption_fill_transaction_ref() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.transaction_ref IS NULL THEN
          SELECT t.transaction_ref INTO NEW.transaction_ref FROM transaction t WHERE t.id = NEW.transaction_id;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER redemption_fill_transaction_ref BEFORE INSERT ON redemption
        FOR EACH ROW WHEN (NEW.transaction_ref IS NULL) EXECUTE FUNCTION redemption_fill_transaction_ref();

      ALTER TABLE redemption ALTER COLUMN transaction_ref SET NOT NULL;

      -- Reversed goal rounds (their refunded purchases have moved to the open round since).
      UPDATE redemption SET reversal_reason = 'goal_round_below_target'
       WHERE status = 'reversed' AND goal_round IS NOT NULL;

      -- Reversed card chain rewards and refunded purchases: the latest record that explains it.
      WITH reversed AS (
        SELECT r.id, t.kind, t.institution_id, t.transaction_ref, c.state, c.authorization_ref, c.clearing_ref
          FROM redemption r
          JOIN transaction t ON t.id = r.transaction_id
          LEFT JOIN card_chain c ON t.kind IN ('authorization', 'clearing') AND c.institution_id = t.institution_id
               AND c.authorization_ref = CASE WHEN t.kind = 'authorization' THEN t.transaction_ref ELSE t.original_transaction_ref END
         WHERE r.status = 'reversed' AND r.goal_round IS NULL AND r.reversal_reason IS NULL
      ), refund AS (
        SELECT x.id, (SELECT f.transaction_ref FROM transaction f
                       WHERE f.kind = 'refund' AND f.institution_id = x.institution_id
                         AND f.original_transaction_ref IN (x.transaction_ref, x.authorization_ref, x.clearing_ref)
                       ORDER BY f.transacted_at DESC, f.id DESC LIMIT 1) AS ref
          FROM reversed x
      ), void AS (
        SELECT x.id, (SELECT v.transaction_ref FROM transaction v
                       WHERE v.kind = 'authorization_reversal' AND v.institution_id = x.institution_id
                         AND v.original_transaction_ref = x.authorization_ref
                       ORDER BY v.transacted_at DESC, v.id DESC LIMIT 1) AS ref
          FROM reversed x WHERE x.state = 'voided'
      ), decided AS (
        SELECT x.id,
               CASE WHEN x.state = 'expired' THEN 'authorization_expired'
                    WHEN x.state = 'voided' THEN 'void'
                    WHEN f.ref IS NOT NULL THEN 'refund'
                    WHEN x.kind = 'authorization' AND x.state = 'cleared' THEN 'clearing_changed'
               END AS reason,
               CASE WHEN x.state = 'expired' THEN NULL
                    WHEN x.state = 'voided' THEN v.ref
                    WHEN f.ref IS NOT NULL THEN f.ref
                    WHEN x.kind = 'authorization' AND x.state = 'cleared' THEN x.clearing_ref
               END AS ref
          FROM reversed x JOIN refund f ON f.id = x.id LEFT JOIN void v ON v.id = x.id
      )
      UPDATE redemption r SET reversal_reason = d.reason, reversal_transaction_ref = d.ref
        FROM decided d WHERE r.id = d.id AND d.reason IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS redemption_fill_transaction_ref ON redemption;
      DROP FUNCTION IF EXISTS redemption_fill_transaction_ref();
      ALTER TABLE redemption
        DROP COLUMN IF EXISTS transaction_ref,
        DROP COLUMN IF EXISTS reversal_reason,
        DROP COLUMN IF EXISTS reversal_transaction_ref;
    `);
  }
}
