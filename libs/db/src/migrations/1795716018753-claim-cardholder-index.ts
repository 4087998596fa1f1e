import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A cardholder's claims by (institution_id, cardholder_token): an erasure finds them by index, as
 * it does in every other table that holds a token (docs/privacy.md).
 */
export class ClaimCardholderIndex1795716018753 implements MigrationInterface {
  name = 'ClaimCardholderIndex1795716018753';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX claim_cardholder_idx ON claim (institution_id, cardholder_token)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS claim_cardholder_idx`);
  }
}
