import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lift report's reads (docs/lift.md), each a range of one index:
 * - transaction_purchase_time_idx: the eligible cardholders (a purchase at the institution in a
 *   time range), index-only;
 * - transaction_merchant_purchase_idx: an offer's merchant's purchases in a time range, index-only
 *   with what the report reads of them;
 * - redemption_offer_idx: an offer's redemptions created in the window;
 * - offer_created_idx: the portal's list of an institution's offers, newest first (keyset).
 * Both transaction indexes hold purchases and clearings only (PURCHASE_KINDS).
 */
export class LiftIndexes1795701801461 implements MigrationInterface {
  name = 'LiftIndexes1795701801461';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX transaction_purchase_time_idx ON transaction (institution_id, transacted_at)
        INCLUDE (cardholder_token) WHERE kind IN ('purchase', 'clearing')`);
    await q.query(`
      CREATE INDEX transaction_merchant_purchase_idx ON transaction (institution_id, merchant_id, transacted_at)
        INCLUDE (cardholder_token, amount, currency, kind, transaction_ref, original_transaction_ref)
        WHERE kind IN ('purchase', 'clearing')`);
    await q.query(`CREATE INDEX redemption_offer_idx ON redemption (offer_id, created_at)`);
    await q.query(`CREATE INDEX offer_created_idx ON offer (created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS offer_created_idx`);
    await q.query(`DROP INDEX IF EXISTS redemption_offer_idx`);
    await q.query(`DROP INDEX IF EXISTS transaction_merchant_purchase_idx`);
    await q.query(`DROP INDEX IF EXISTS transaction_purchase_time_idx`);
  }
}
