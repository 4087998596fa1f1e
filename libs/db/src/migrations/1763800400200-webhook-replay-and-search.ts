import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Portal tools for webhooks:
 * - webhook_attempt.request_headers: the headers an attempt sent, signatures shortened (the
 *   attempt detail shows them).
 * - webhook_replay: "replay failed deliveries since <time>", worked off by the worker at a paced
 *   rate (one step a second at most, whichever worker takes it: stepped_at); cursor_* is where it
 *   got to (keyset over created_at, id), so a restart resumes.
 * - indexes for the delivery search (event, offer) and the per-hour chart (last attempt).
 */
export class WebhookReplayAndSearch1763800400200 implements MigrationInterface {
  name = 'WebhookReplayAndSearch1763800400200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_attempt ADD COLUMN request_headers jsonb;

      CREATE TABLE webhook_replay (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id),
        since timestamptz NOT NULL,
        until timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),
        total integer NOT NULL,
        done integer NOT NULL DEFAULT 0,
        cursor_created_at timestamptz,
        cursor_id uuid,
        stepped_at timestamptz,
        requested_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      );
      CREATE INDEX webhook_replay_institution_idx ON webhook_replay (institution_id, created_at DESC);
      CREATE UNIQUE INDEX webhook_replay_running_idx ON webhook_replay (institution_id) WHERE status = 'running';

      CREATE INDEX webhook_delivery_event_idx ON webhook_delivery (institution_id, event, created_at DESC, id DESC);
      CREATE INDEX webhook_delivery_offer_idx ON webhook_delivery (institution_id, (payload->>'offer_id'), created_at DESC, id DESC);
      CREATE INDEX webhook_delivery_last_attempt_idx ON webhook_delivery (institution_id, last_attempt_at)
        WHERE status IN ('delivered', 'failed');
      -- the replay walks one institution's failed deliveries in created_at order
      CREATE INDEX webhook_delivery_failed_idx ON webhook_delivery (institution_id, created_at, id) WHERE status = 'failed';`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS webhook_delivery_failed_idx;
      DROP INDEX IF EXISTS webhook_delivery_last_attempt_idx;
      DROP INDEX IF EXISTS webhook_delivery_offer_idx;
      DROP INDEX IF EXISTS webhook_delivery_event_idx;
      DROP TABLE IF EXISTS webhook_replay;
      ALTER TABLE webhook_attempt DROP COLUMN IF EXISTS request_headers;`);
  }
}
