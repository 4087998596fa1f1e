import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Funnel roll-ups. Counting raw engagement events for a 30-day window took ~100 ms at 500k
 * events per institution and ~1 s at 5M (bench/reporting.bench.js), so every insert into
 * engagement_event also maintains, in the same statement:
 * - engagement_hourly: counts per institution, UTC hour and kind;
 * - engagement_daily_cardholder: the distinct cardholders with a widget view per institution and
 *   UTC day.
 * The funnel sums whole hours from the first, counts the partial hours at the window's edges from
 * the raw events, and counts distinct cardholders over whole days plus the partial days' raw views.
 */
export class EngagementRollups1763700005000 implements MigrationInterface {
  name = 'EngagementRollups1763700005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE engagement_hourly (
        institution_id uuid NOT NULL,
        hour timestamptz NOT NULL,
        kind text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (institution_id, kind, hour)
      );
      CREATE TABLE engagement_daily_cardholder (
        institution_id uuid NOT NULL,
        day date NOT NULL,
        cardholder_token text NOT NULL,
        PRIMARY KEY (institution_id, day, cardholder_token)
      );

      CREATE FUNCTION engagement_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- Sorted so that concurrent inserts lock the counter rows in one order (no deadlocks).
        INSERT INTO engagement_hourly (institution_id, hour, kind, count)
        SELECT institution_id, date_trunc('hour', occurred_at, 'UTC'), kind, count(*)
          FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
        ON CONFLICT (institution_id, kind, hour) DO UPDATE SET count = engagement_hourly.count + EXCLUDED.count;
        INSERT INTO engagement_daily_cardholder (institution_id, day, cardholder_token)
        SELECT DISTINCT institution_id, (occurred_at AT TIME ZONE 'UTC')::date, cardholder_token
          FROM new_rows WHERE kind = 'widget_view' ORDER BY 1, 2, 3
        ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$;

      CREATE TRIGGER engagement_rollup AFTER INSERT ON engagement_event
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_rollup();

      INSERT INTO engagement_hourly (institution_id, hour, kind, count)
      SELECT institution_id, date_trunc('hour', occurred_at, 'UTC'), kind, count(*) FROM engagement_event GROUP BY 1, 2, 3;
      INSERT INTO engagement_daily_cardholder (institution_id, day, cardholder_token)
      SELECT DISTINCT institution_id, (occurred_at AT TIME ZONE 'UTC')::date, cardholder_token
        FROM engagement_event WHERE kind = 'widget_view';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS engagement_rollup ON engagement_event;
      DROP FUNCTION IF EXISTS engagement_rollup();
      DROP TABLE IF EXISTS engagement_hourly, engagement_daily_cardholder;
    `);
  }
}
