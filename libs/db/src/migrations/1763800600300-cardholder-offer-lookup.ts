import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A cardholder's enrollments by (institution_id, cardholder_token), whatever their status. Since
 * the one-per-offer unique became a partial index (non-expired rows only), the statements that
 * read all of a cardholder's enrollments (the feed, the add's facts) could no longer use it and
 * scanned the whole table: 785 ms per feed request at 1.1M enrollments in the bench.
 */
export class CardholderOfferLookup1763800600300 implements MigrationInterface {
  name = 'CardholderOfferLookup1763800600300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS cardholder_offer_cardholder_idx ON cardholder_offer (institution_id, cardholder_token)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS cardholder_offer_cardholder_idx`);
  }
}
