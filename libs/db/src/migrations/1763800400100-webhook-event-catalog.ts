import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The webhook event catalog:
 * - webhook_delivery.event also takes redemption.settled and webhook.test; a test event has no
 *   redemption (redemption_id is null for it, and only for it).
 * - institution.webhook_event_types: the event types an institution receives. Institutions that
 *   exist now keep what they received so far (completed and reversed) until they choose; new ones
 *   get every redemption event. webhook.test is sent only on request and is not in the list.
 */
export class WebhookEventCatalog1763800400100 implements MigrationInterface {
  name = 'WebhookEventCatalog1763800400100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_event_check;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_event_check
        CHECK (event IN ('redemption.completed', 'redemption.reversed', 'redemption.settled', 'webhook.test'));
      ALTER TABLE webhook_delivery ALTER COLUMN redemption_id DROP NOT NULL;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_redemption_check
        CHECK ((redemption_id IS NULL) = (event = 'webhook.test'));
      ALTER TABLE institution
        ADD COLUMN webhook_event_types text[] NOT NULL
          DEFAULT ARRAY['redemption.completed', 'redemption.reversed']::text[];
      ALTER TABLE institution ALTER COLUMN webhook_event_types
        SET DEFAULT ARRAY['redemption.completed', 'redemption.reversed', 'redemption.settled']::text[];`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE institution DROP COLUMN IF EXISTS webhook_event_types;
      DELETE FROM webhook_delivery WHERE event IN ('redemption.settled', 'webhook.test');
      ALTER TABLE webhook_delivery DROP CONSTRAINT IF EXISTS webhook_delivery_redemption_check;
      ALTER TABLE webhook_delivery ALTER COLUMN redemption_id SET NOT NULL;
      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_event_check;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_event_check
        CHECK (event IN ('redemption.completed', 'redemption.reversed'));`);
  }
}
