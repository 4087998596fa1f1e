import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Qualification rules of an offer (max spend, days of week, local hours, card networks), kept as
 * one optional JSON object (null = no rule, the offer behaves as before), and the program's time
 * zone in which days and hours are read (null = UTC).
 */
export class OfferQualification1763800200000 implements MigrationInterface {
  name = 'OfferQualification1763800200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE offer ADD COLUMN qualification jsonb`);
    await q.query(`ALTER TABLE program ADD COLUMN time_zone text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE offer DROP COLUMN IF EXISTS qualification`);
    await q.query(`ALTER TABLE program DROP COLUMN IF EXISTS time_zone`);
  }
}
