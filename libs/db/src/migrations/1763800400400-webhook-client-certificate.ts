import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mutual TLS toward an institution's gateway: a client certificate and its private key (PEM),
 * both encrypted like the signing secret; subject and expiry kept in clear for the portal.
 */
export class WebhookClientCertificate1763800400400 implements MigrationInterface {
  name = 'WebhookClientCertificate1763800400400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE institution
        ADD COLUMN webhook_client_cert_encrypted text,
        ADD COLUMN webhook_client_key_encrypted text,
        ADD COLUMN webhook_client_cert_subject text,
        ADD COLUMN webhook_client_cert_expires_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE institution
        DROP COLUMN IF EXISTS webhook_client_cert_encrypted,
        DROP COLUMN IF EXISTS webhook_client_key_encrypted,
        DROP COLUMN IF EXISTS webhook_client_cert_subject,
        DROP COLUMN IF EXISTS webhook_client_cert_expires_at`);
  }
}
