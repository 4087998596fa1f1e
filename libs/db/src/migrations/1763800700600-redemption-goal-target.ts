import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * redemption.goal_target: the target a goal round was rewarded under (purchases, or minor units;
 * null for every other redemption). A refund of a rewarded round is judged against it, so a later
 * change of the offer's target never reverses (or keeps) a round that was paid under another one.
 * Existing goal redemptions take their offer's target as it stands (the best record there is);
 * readers fall back to the offer's target while a row has none (a version that does not write it).
 */
export class RedemptionGoalTarget1763800700600 implements MigrationInterface {
  name = 'RedemptionGoalTarget1763800700600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemption ADD COLUMN goal_target bigint`);
    await q.query(`
      UPDATE redemption r SET goal_target = o.goal_target
        FROM offer o
       WHERE o.id = r.offer_id AND r.goal_round IS NOT NULL AND o.goal_target IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemption DROP COLUMN IF EXISTS goal_target`);
  }
}
