import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a bank's gateway may need, and pausing a URL that keeps failing:
 * - webhook_headers_encrypted: up to 5 custom headers (JSON), encrypted like the signing secret.
 * - webhook_max_per_second: an optional cap on attempts per second to this institution's URL.
 * - webhook_failing_since: the first failed attempt since the last success; after
 *   WEBHOOK_DISABLE_AFTER_DAYS of nothing but failures the URL is paused (webhook_disabled_at):
 *   deliveries wait, unsent, until an admin resumes them.
 */
export class WebhookEndpointOptions1763800400300 implements MigrationInterface {
  name = 'WebhookEndpointOptions1763800400300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE institution
        ADD COLUMN webhook_headers_encrypted text,
        ADD COLUMN webhook_max_per_second integer CHECK (webhook_max_per_second BETWEEN 1 AND 1000),
        ADD COLUMN webhook_failing_since timestamptz,
        ADD COLUMN webhook_disabled_at timestamptz;
      -- resuming a paused URL queues its pending deliveries in creation order
      CREATE INDEX webhook_delivery_pending_idx ON webhook_delivery (institution_id, created_at, id) WHERE status = 'pending';`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS webhook_delivery_pending_idx;
      ALTER TABLE institution
        DROP COLUMN IF EXISTS webhook_headers_encrypted,
        DROP COLUMN IF EXISTS webhook_max_per_second,
        DROP COLUMN IF EXISTS webhook_failing_since,
        DROP COLUMN IF EXISTS webhook_disabled_at;`);
  }
}
