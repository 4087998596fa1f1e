import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A replay's pace is fixed when it is requested (the requesting api's
 * WEBHOOK_REPLAY_RATE_PER_S), so every worker that steps it keeps the same rate. NULL (replays
 * started before this column): the stepping worker's own setting.
 */
export class WebhookReplayPace1763800600400 implements MigrationInterface {
  name = 'WebhookReplayPace1763800600400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_replay ADD COLUMN IF NOT EXISTS per_second int CHECK (per_second > 0)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_replay DROP COLUMN IF EXISTS per_second`);
  }
}
