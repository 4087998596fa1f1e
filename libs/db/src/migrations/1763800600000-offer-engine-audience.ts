import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Channels, activation windows and audiences:
 * - transaction.channel (`in_store` | `online`, null = not sent) for channel-restricted offers;
 * - an enrollment whose activation window is over is kept (its redemptions point at it) with
 *   status `expired` when the cardholder adds the offer again, so the one-enrollment-per-offer rule
 *   becomes a partial unique index over the enrollments that are not expired.
 * Audiences read a cardholder's purchases at a merchant through the existing
 * transaction_cardholder_idx (institution_id, cardholder_token, merchant_id); no index is added to
 * the transaction table, whose every write matching and ingestion pay for.
 */
export class OfferEngineAudience1763800600000 implements MigrationInterface {
  name = 'OfferEngineAudience1763800600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE transaction ADD COLUMN channel text CHECK (channel IN ('in_store', 'online'))`,
    );
    await q.query(`ALTER TABLE cardholder_offer DROP CONSTRAINT cardholder_offer_unique`);
    await q.query(
      `CREATE UNIQUE INDEX cardholder_offer_unique ON cardholder_offer (institution_id, cardholder_token, offer_id)
        WHERE status <> 'expired'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS cardholder_offer_unique`);
    await q.query(
      `ALTER TABLE cardholder_offer ADD CONSTRAINT cardholder_offer_unique UNIQUE (institution_id, cardholder_token, offer_id)`,
    );
    await q.query(`ALTER TABLE transaction DROP COLUMN IF EXISTS channel`);
  }
}
