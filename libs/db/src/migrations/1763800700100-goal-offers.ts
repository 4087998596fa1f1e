import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Goal offers (purchase_count, cumulative_spend):
 * - offer.goal_type / goal_target (purchases, or minor units of the offer currency), both null on
 *   an offer without a goal;
 * - the enrollment's open round: goal_round (1, 2, …), goal_progress (purchases or minor units)
 *   and goal_spend (the round's counted spend, minor units: what a percent reward is paid on);
 * - goal_contribution: what each counted purchase added to which round of which enrollment, keyed
 *   (transaction_id, cardholder_offer_id) so a purchase counts once per enrollment and a refund can
 *   take its contribution back; (cardholder_offer_id, round) serves a round's total;
 * - redemption.goal_round: the round a goal redemption rewards (null for every other redemption),
 *   served by the existing redemption_enrollment_idx.
 * Every column is added nullable or with a constant default, so the running version keeps working.
 */
export class GoalOffers1763800700100 implements MigrationInterface {
  name = 'GoalOffers1763800700100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE offer
        ADD COLUMN goal_type text CHECK (goal_type IN ('purchase_count', 'cumulative_spend')),
        ADD COLUMN goal_target bigint CHECK (goal_target > 0),
        ADD CONSTRAINT offer_goal_check CHECK ((goal_type IS NULL) = (goal_target IS NULL))`);
    await q.query(`
      ALTER TABLE cardholder_offer
        ADD COLUMN goal_round integer NOT NULL DEFAULT 1,
        ADD COLUMN goal_progress bigint NOT NULL DEFAULT 0,
        ADD COLUMN goal_spend bigint NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE redemption ADD COLUMN goal_round integer`);
    await q.query(`
      CREATE TABLE goal_contribution (
        transaction_id uuid NOT NULL REFERENCES transaction(id),
        cardholder_offer_id uuid NOT NULL REFERENCES cardholder_offer(id),
        round integer NOT NULL,
        units bigint NOT NULL CHECK (units >= 0),
        spend bigint NOT NULL CHECK (spend >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (transaction_id, cardholder_offer_id)
      )`);
    await q.query(
      `CREATE INDEX goal_contribution_round_idx ON goal_contribution (cardholder_offer_id, round)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS goal_contribution`);
    await q.query(`ALTER TABLE redemption DROP COLUMN IF EXISTS goal_round`);
    await q.query(`
      ALTER TABLE cardholder_offer
        DROP COLUMN IF EXISTS goal_round, DROP COLUMN IF EXISTS goal_progress, DROP COLUMN IF EXISTS goal_spend`);
    await q.query(`
      ALTER TABLE offer DROP CONSTRAINT IF EXISTS offer_goal_check,
        DROP COLUMN IF EXISTS goal_type, DROP COLUMN IF EXISTS goal_target`);
  }
}
