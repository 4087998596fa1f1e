import { MigrationInterface, QueryRunner } from 'typeorm';

/** The statement trigger that keeps the funnel rollups, skipped for rows the move command moves. */
const ROLLUP_TRIGGER = `
  CREATE TRIGGER engagement_rollup AFTER INSERT ON engagement_event
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    WHEN (current_setting('offers.partition_move', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION engagement_rollup()`;

/**
 * engagement_event partitioned by UTC month of occurred_at (docs/retention.md), so that retention
 * drops a month whole and every funnel read, bounded by occurred_at, touches the months it needs.
 * Keys carry the tenant: the primary key is (institution_id, occurred_at, id), as a partitioned
 * table's unique keys must hold the partition key.
 *
 * The upgrade only renames the old table aside (engagement_event_unpartitioned) and creates the
 * partitioned one under the old name: the running version's inserts go to the new table from the
 * moment this commits (partitions from 13 months back, the default retention, through two months
 * ahead). The old rows move later, in
 * batches, with `npm run migrate -- --move-partitions` (libs/core/src/data-lifecycle); an empty old
 * table (a new install) is dropped here. The rollup trigger skips a statement that moves rows
 * (the session setting offers.partition_move): they were counted when first written.
 */
export class EngagementEventPartitions1795711516148 implements MigrationInterface {
  name = 'EngagementEventPartitions1795711516148';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE engagement_event RENAME TO engagement_event_unpartitioned;
      ALTER INDEX engagement_event_pkey RENAME TO engagement_event_unpartitioned_pkey;
      ALTER INDEX engagement_event_funnel_idx RENAME TO engagement_event_unpartitioned_funnel_idx;
      ALTER SEQUENCE engagement_event_id_seq RENAME TO engagement_event_unpartitioned_id_seq;
      DROP TRIGGER engagement_rollup ON engagement_event_unpartitioned;

      CREATE TABLE engagement_event (
        id bigint GENERATED ALWAYS AS IDENTITY,
        institution_id uuid NOT NULL,
        kind text NOT NULL CONSTRAINT engagement_event_kind_check
          CHECK (kind IN ('widget_view', 'impression', 'add_success')),
        cardholder_token text NOT NULL,
        offer_id uuid,
        occurred_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT engagement_event_pkey PRIMARY KEY (institution_id, occurred_at, id)
      ) PARTITION BY RANGE (occurred_at);
      CREATE INDEX engagement_event_funnel_idx ON engagement_event (institution_id, kind, occurred_at)
        INCLUDE (cardholder_token);
      ${ROLLUP_TRIGGER};

      DO $$
      DECLARE
        month timestamp;
        next_id bigint;
      BEGIN
        -- The months a row may be kept in at the default retention (13), through two ahead.
        FOR i IN -13..2 LOOP
          month := date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => i);
          EXECUTE format(
            'CREATE TABLE %I PARTITION OF engagement_event FOR VALUES FROM (%L) TO (%L) WITH (parallel_workers = 0)',
            'engagement_event_p' || to_char(month, 'YYYY_MM'),
            to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00',
            to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
        END LOOP;
        -- Ids stay unique across old and new rows.
        SELECT COALESCE(max(id), 0) + 1 INTO next_id FROM engagement_event_unpartitioned;
        EXECUTE format('ALTER TABLE engagement_event ALTER COLUMN id RESTART WITH %s', next_id);
        IF NOT EXISTS (SELECT 1 FROM engagement_event_unpartitioned) THEN
          DROP TABLE engagement_event_unpartitioned;
        END IF;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE engagement_event_flat (
        id bigint GENERATED ALWAYS AS IDENTITY,
        institution_id uuid NOT NULL,
        kind text NOT NULL CONSTRAINT engagement_event_kind_check
          CHECK (kind IN ('widget_view', 'impression', 'add_success')),
        cardholder_token text NOT NULL,
        offer_id uuid,
        occurred_at timestamptz NOT NULL DEFAULT now()
      ) WITH (parallel_workers = 0);
      INSERT INTO engagement_event_flat (id, institution_id, kind, cardholder_token, offer_id, occurred_at)
        OVERRIDING SYSTEM VALUE
      SELECT id, institution_id, kind, cardholder_token, offer_id, occurred_at FROM engagement_event;
      DO $$ BEGIN
        IF to_regclass('engagement_event_unpartitioned') IS NOT NULL THEN
          INSERT INTO engagement_event_flat (id, institution_id, kind, cardholder_token, offer_id, occurred_at)
            OVERRIDING SYSTEM VALUE
          SELECT id, institution_id, kind, cardholder_token, offer_id, occurred_at FROM engagement_event_unpartitioned;
          DROP TABLE engagement_event_unpartitioned;
        END IF;
      END $$;
      DROP TABLE engagement_event;
      ALTER TABLE engagement_event_flat RENAME TO engagement_event;
      ALTER SEQUENCE engagement_event_flat_id_seq RENAME TO engagement_event_id_seq;
      SELECT setval('engagement_event_id_seq', (SELECT COALESCE(max(id), 0) + 1 FROM engagement_event), false);
      ALTER TABLE engagement_event ADD CONSTRAINT engagement_event_pkey PRIMARY KEY (id);
      CREATE INDEX engagement_event_funnel_idx ON engagement_event (institution_id, kind, occurred_at)
        INCLUDE (cardholder_token);
      CREATE TRIGGER engagement_rollup AFTER INSERT ON engagement_event
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_rollup();
    `);
  }
}
