import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention's own records (docs/retention.md):
 * - legal_hold: an institution whose data no retention drop may remove while the hold stands
 *   (placed and lifted by an operator);
 * - data_lifecycle_run: one row per UTC hour, inserted by the worker that runs that hour's
 *   partition upkeep and retention (the primary key makes it one run per hour across workers),
 *   with what the run created, dropped and kept, and why.
 */
export class DataLifecycle1795711516147 implements MigrationInterface {
  name = 'DataLifecycle1795711516147';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE legal_hold (
        institution_id uuid NOT NULL CONSTRAINT legal_hold_institution_fkey REFERENCES institution(id),
        reason text NOT NULL,
        placed_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT legal_hold_pkey PRIMARY KEY (institution_id)
      );
      CREATE TABLE data_lifecycle_run (
        tick timestamptz NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        created_partitions text[] NOT NULL DEFAULT '{}',
        dropped_partitions text[] NOT NULL DEFAULT '{}',
        kept jsonb NOT NULL DEFAULT '[]',
        error text,
        CONSTRAINT data_lifecycle_run_pkey PRIMARY KEY (tick)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS data_lifecycle_run, legal_hold`);
  }
}
