import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Prompt hand-off of new webhook deliveries: every statement that inserts delivery rows notifies
 * channel `webhook_outbox` (delivered at commit, once per transaction), and the worker's relay,
 * listening, enqueues them at once instead of at its next interval. The code that writes the rows
 * (matching) needs to know nothing about the queue; the interval pass stays as the safety net.
 */
export class WebhookOutboxNotify1763700003100 implements MigrationInterface {
  name = 'WebhookOutboxNotify1763700003100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION webhook_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('webhook_outbox', '');
        RETURN NULL;
      END $$;
      CREATE TRIGGER webhook_delivery_outbox_notify AFTER INSERT ON webhook_delivery
        FOR EACH STATEMENT EXECUTE FUNCTION webhook_outbox_notify();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS webhook_delivery_outbox_notify ON webhook_delivery;
      DROP FUNCTION IF EXISTS webhook_outbox_notify();
    `);
  }
}
