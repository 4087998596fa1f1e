import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook delivery engine (issue 6):
 * - series_attempt_count: attempts made in the current series (the automatic series, or one
 *   manual redelivery); with redelivery_count it names the next job (`wh-<id>-r<series>-a<n>`), so
 *   a re-enqueued or duplicate job finds the step already done and does nothing.
 * - lease_*: an attempt in flight. A worker claims the row before sending and clears the lease
 *   when it records the outcome; a second claimant waits; a lease that expired without an outcome
 *   (the worker died mid-request) is logged as an interrupted attempt and the series goes on.
 * - status_reason: why a delivery is skipped or failed, for the portal.
 * - webhook_delivery_due_idx: the relay finds pending deliveries whose next attempt is overdue
 *   (a retry job lost with Redis, or a crash between commit and enqueue).
 */
export class WebhookDeliveryLease1763700003000 implements MigrationInterface {
  name = 'WebhookDeliveryLease1763700003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_delivery
        ADD COLUMN series_attempt_count integer NOT NULL DEFAULT 0,
        ADD COLUMN lease_token uuid,
        ADD COLUMN lease_until timestamptz,
        ADD COLUMN lease_started_at timestamptz,
        ADD COLUMN lease_url text,
        ADD COLUMN status_reason text;
      CREATE INDEX webhook_delivery_due_idx ON webhook_delivery (next_attempt_at) WHERE status = 'pending';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS webhook_delivery_due_idx;
      ALTER TABLE webhook_delivery
        DROP COLUMN series_attempt_count, DROP COLUMN lease_token, DROP COLUMN lease_until,
        DROP COLUMN lease_started_at, DROP COLUMN lease_url, DROP COLUMN status_reason;
    `);
  }
}
