import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signing-secret rotation with overlap: after a rotation the previous secret keeps signing (a
 * second Standard Webhooks signature) until webhook_previous_secret_expires_at, so receivers can
 * switch at their own pace. Encrypted like the current secret.
 */
export class WebhookSecretOverlap1763800400000 implements MigrationInterface {
  name = 'WebhookSecretOverlap1763800400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE institution
        ADD COLUMN webhook_previous_secret_encrypted text,
        ADD COLUMN webhook_previous_secret_expires_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE institution
        DROP COLUMN IF EXISTS webhook_previous_secret_encrypted,
        DROP COLUMN IF EXISTS webhook_previous_secret_expires_at`);
  }
}
