import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The upgrade to per-purpose keys derived from SECRETS_KEY (docs/operations.md, "Keys"). One row:
 * upgraded_at, when this migration ran, starts the 24 h in which cursors and CSRF tokens MACed
 * with SECRETS_KEY itself (the previous release's) are still accepted; reencrypted_at, when
 * `cli reencrypt` last moved the stored secrets to the derived key.
 */
export class KeyDerivation1795699994853 implements MigrationInterface {
  name = 'KeyDerivation1795699994853';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE key_derivation (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        upgraded_at timestamptz NOT NULL DEFAULT now(),
        reencrypted_at timestamptz
      )`);
    await q.query(`INSERT INTO key_derivation DEFAULT VALUES`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS key_derivation`);
  }
}
