import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The `statement.closed` webhook event type (docs/webhooks.md): webhook_delivery accepts it. Like
 * `claim.resolved` it is about no redemption, which the claims migration's rule already says (a
 * delivery has a redemption exactly when its event is a redemption event). Added NOT VALID, as
 * there: every existing row met the narrower CHECK it replaces.
 */
export class StatementClosedEvent1795716651246 implements MigrationInterface {
  name = 'StatementClosedEvent1795716651246';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_event_check;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_event_check
        CHECK (event IN ('redemption.completed', 'redemption.reversed', 'redemption.settled', 'webhook.test',
                         'claim.resolved', 'statement.closed')) NOT VALID`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM webhook_delivery WHERE event = 'statement.closed';
      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_event_check;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_event_check
        CHECK (event IN ('redemption.completed', 'redemption.reversed', 'redemption.settled', 'webhook.test',
                         'claim.resolved')) NOT VALID`);
  }
}
