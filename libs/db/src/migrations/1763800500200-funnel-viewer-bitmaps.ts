import { MigrationInterface, QueryRunner } from 'typeorm';

/** Bits per bitmap row: cardholder number n lives in chunk n / 4096, bit n % 4096. */
export const VIEWER_CHUNK_BITS = 4096;

const ROLLUP_FUNCTION = `
  CREATE OR REPLACE FUNCTION engagement_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    -- Sorted so that concurrent inserts lock rows in one order (no deadlocks): counts, then
    -- numbers, then bitmaps, each by institution first.
    INSERT INTO engagement_hourly (institution_id, hour, kind, count)
    SELECT institution_id, date_trunc('hour', occurred_at, 'UTC'), kind, count(*)
      FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
    ON CONFLICT (institution_id, kind, hour) DO UPDATE SET count = engagement_hourly.count + EXCLUDED.count;

    -- A dense number per institution for each cardholder with a first widget view. Two inserts
    -- racing on one new cardholder: the second does nothing (a gap in the numbers, harmless).
    WITH v AS (SELECT DISTINCT institution_id, cardholder_token FROM new_rows WHERE kind = 'widget_view'),
         missing AS (SELECT v.institution_id, v.cardholder_token FROM v
                      WHERE NOT EXISTS (SELECT 1 FROM engagement_cardholder_number c
                                         WHERE c.institution_id = v.institution_id AND c.cardholder_token = v.cardholder_token)),
         per AS (SELECT institution_id, count(*)::int AS k FROM missing GROUP BY 1),
         bumped AS (INSERT INTO engagement_number_counter AS c (institution_id, next)
                    SELECT institution_id, k FROM per ORDER BY 1
                    ON CONFLICT (institution_id) DO UPDATE SET next = c.next + EXCLUDED.next
                    RETURNING institution_id, next)
    INSERT INTO engagement_cardholder_number (institution_id, cardholder_token, n)
    SELECT m.institution_id, m.cardholder_token,
           b.next - p.k + (row_number() OVER (PARTITION BY m.institution_id ORDER BY m.cardholder_token))::int - 1
      FROM missing m JOIN per p USING (institution_id) JOIN bumped b USING (institution_id)
    ON CONFLICT DO NOTHING;

    INSERT INTO engagement_viewers_hourly (institution_id, hour, chunk, bits)
    SELECT r.institution_id, date_trunc('hour', r.occurred_at, 'UTC'), c.n / ${VIEWER_CHUNK_BITS},
           bit_or(set_bit(B'0'::bit(${VIEWER_CHUNK_BITS}), c.n % ${VIEWER_CHUNK_BITS}, 1))
      FROM new_rows r JOIN engagement_cardholder_number c
        ON c.institution_id = r.institution_id AND c.cardholder_token = r.cardholder_token
     WHERE r.kind = 'widget_view' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (institution_id, hour, chunk) DO UPDATE SET bits = engagement_viewers_hourly.bits | EXCLUDED.bits;

    INSERT INTO engagement_viewers_daily (institution_id, day, chunk, bits)
    SELECT r.institution_id, (r.occurred_at AT TIME ZONE 'UTC')::date, c.n / ${VIEWER_CHUNK_BITS},
           bit_or(set_bit(B'0'::bit(${VIEWER_CHUNK_BITS}), c.n % ${VIEWER_CHUNK_BITS}, 1))
      FROM new_rows r JOIN engagement_cardholder_number c
        ON c.institution_id = r.institution_id AND c.cardholder_token = r.cardholder_token
     WHERE r.kind = 'widget_view' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (institution_id, day, chunk) DO UPDATE SET bits = engagement_viewers_daily.bits | EXCLUDED.bits;
    RETURN NULL;
  END $$;`;

/**
 * The funnel's distinct cardholders over long windows, exact and fast. A set of cardholder tokens
 * per day (engagement_daily_cardholder) made a 30-day count a DISTINCT over every day's tokens
 * (1.5M rows at 50,000 viewers a day). Instead, each cardholder with a widget view gets a dense
 * number per institution, and the trigger keeps exact per-hour and per-day bitmaps of the numbers
 * seen (4,096 bits a row). A window's distinct count is the bit count of the OR of whole days'
 * bitmaps, the edge days' whole hours' bitmaps and the raw views of the edge hours: a few thousand
 * rows whatever the number of views.
 */
export class FunnelViewerBitmaps1763800500200 implements MigrationInterface {
  name = 'FunnelViewerBitmaps1763800500200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE engagement_number_counter (
        institution_id uuid PRIMARY KEY,
        next int NOT NULL
      );
      CREATE TABLE engagement_cardholder_number (
        institution_id uuid NOT NULL,
        cardholder_token text NOT NULL,
        n int NOT NULL,
        PRIMARY KEY (institution_id, cardholder_token)
      );
      CREATE TABLE engagement_viewers_hourly (
        institution_id uuid NOT NULL,
        hour timestamptz NOT NULL,
        chunk int NOT NULL,
        bits bit(${VIEWER_CHUNK_BITS}) NOT NULL,
        PRIMARY KEY (institution_id, hour, chunk)
      );
      CREATE TABLE engagement_viewers_daily (
        institution_id uuid NOT NULL,
        day date NOT NULL,
        chunk int NOT NULL,
        bits bit(${VIEWER_CHUNK_BITS}) NOT NULL,
        PRIMARY KEY (institution_id, day, chunk)
      );

      INSERT INTO engagement_cardholder_number (institution_id, cardholder_token, n)
      SELECT institution_id, cardholder_token,
             (row_number() OVER (PARTITION BY institution_id ORDER BY cardholder_token))::int - 1
        FROM (SELECT DISTINCT institution_id, cardholder_token FROM engagement_event WHERE kind = 'widget_view') v;
      INSERT INTO engagement_number_counter (institution_id, next)
      SELECT institution_id, max(n) + 1 FROM engagement_cardholder_number GROUP BY 1;
      INSERT INTO engagement_viewers_hourly (institution_id, hour, chunk, bits)
      SELECT e.institution_id, date_trunc('hour', e.occurred_at, 'UTC'), c.n / ${VIEWER_CHUNK_BITS},
             bit_or(set_bit(B'0'::bit(${VIEWER_CHUNK_BITS}), c.n % ${VIEWER_CHUNK_BITS}, 1))
        FROM engagement_event e JOIN engagement_cardholder_number c
          ON c.institution_id = e.institution_id AND c.cardholder_token = e.cardholder_token
       WHERE e.kind = 'widget_view' GROUP BY 1, 2, 3;
      INSERT INTO engagement_viewers_daily (institution_id, day, chunk, bits)
      SELECT institution_id, (hour AT TIME ZONE 'UTC')::date, chunk, bit_or(bits)
        FROM engagement_viewers_hourly GROUP BY 1, 2, 3;

      ${ROLLUP_FUNCTION}

      DROP TABLE engagement_daily_cardholder;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE engagement_daily_cardholder (
        institution_id uuid NOT NULL,
        day date NOT NULL,
        cardholder_token text NOT NULL,
        PRIMARY KEY (institution_id, day, cardholder_token)
      );
      INSERT INTO engagement_daily_cardholder (institution_id, day, cardholder_token)
      SELECT DISTINCT institution_id, (occurred_at AT TIME ZONE 'UTC')::date, cardholder_token
        FROM engagement_event WHERE kind = 'widget_view';
      CREATE OR REPLACE FUNCTION engagement_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
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
      DROP TABLE engagement_viewers_daily, engagement_viewers_hourly, engagement_cardholder_number, engagement_number_counter;
    `);
  }
}
