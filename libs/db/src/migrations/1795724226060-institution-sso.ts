import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An institution's single sign-on for its staff (docs/portal.md, "Single sign-on"): its OpenID
 * Connect provider, the client (secret encrypted like webhook secrets), the claim and its map to
 * portal roles, and whether password sign-in stays on.
 */
export class InstitutionSso1795724226060 implements MigrationInterface {
  name = 'InstitutionSso1795724226060';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE institution_sso (
        institution_id uuid PRIMARY KEY REFERENCES institution (id) ON DELETE CASCADE,
        issuer text NOT NULL,
        client_id text NOT NULL,
        client_secret text NOT NULL,
        role_claim text NOT NULL,
        role_map jsonb NOT NULL,
        password_login boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS institution_sso`);
  }
}
