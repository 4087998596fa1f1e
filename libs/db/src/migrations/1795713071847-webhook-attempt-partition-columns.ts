import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The first of two releases that partition webhook_attempt (docs/retention.md): each attempt
 * carries its tenant and its delivery's creation time, written with the attempt from this release
 * on. The release that partitions webhook_attempt by delivery_created_at (its delivery's month, so
 * that the unique key (delivery_id, attempt_number) keeps its meaning with the partition key added)
 * fills the older rows as it moves them and only then requires them; the version running during
 * that deploy, this one, already writes them, so its inserts route to a partition. Nullable
 * columns without a default: adding them rewrites nothing.
 */
export class WebhookAttemptPartitionColumns1795713071847 implements MigrationInterface {
  name = 'WebhookAttemptPartitionColumns1795713071847';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_attempt ADD COLUMN institution_id uuid, ADD COLUMN delivery_created_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_attempt DROP COLUMN IF EXISTS institution_id, DROP COLUMN IF EXISTS delivery_created_at`);
  }
}
