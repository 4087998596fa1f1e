import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Holdouts (docs/lift.md): offer.holdout_bps, the share of eligible cardholders who never see or
 * get the offer, in basis points (0–5000; 0 = none); offer.has_been_live, set by the admin update
 * once the offer has been `active` at or after its starts_at (from then on, and once anyone added
 * the offer, the holdout can no longer change). Existing offers past their start that are no longer
 * drafts are taken as having been live (the safe side: their holdout stays 0).
 */
export class OfferHoldout1795701801460 implements MigrationInterface {
  name = 'OfferHoldout1795701801460';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE offer
        ADD COLUMN holdout_bps int NOT NULL DEFAULT 0 CHECK (holdout_bps BETWEEN 0 AND 5000),
        ADD COLUMN has_been_live boolean NOT NULL DEFAULT false`);
    await q.query(
      `UPDATE offer SET has_been_live = true WHERE status <> 'draft' AND starts_at <= now()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE offer DROP COLUMN IF EXISTS holdout_bps, DROP COLUMN IF EXISTS has_been_live`,
    );
  }
}
