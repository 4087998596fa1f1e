import { MigrationInterface, QueryRunner } from 'typeorm';

/** The columns of webhook_delivery, in the order the move copies them. */
const DELIVERY_COLUMNS = `id, institution_id, redemption_id, event, payload, status, attempt_count, redelivery_count,
  next_attempt_at, enqueued_at, last_attempt_at, delivered_at, created_at, series_attempt_count, lease_token,
  lease_until, lease_started_at, lease_url, status_reason`;
/** The columns of webhook_attempt an old row has (its tenant and partition key come from its delivery). */
const ATTEMPT_COLUMNS = `id, delivery_id, attempt_number, trigger, url, started_at, duration_ms, http_status,
  error_class, error_message, response_excerpt, request_headers`;

/**
 * webhook_delivery and webhook_attempt partitioned by UTC month (docs/retention.md), so that
 * retention drops a month whole and every read names the months it needs:
 * - webhook_delivery by created_at, primary key (institution_id, created_at, id);
 * - webhook_attempt by its delivery's created_at (delivery_created_at, written since the
 *   preparatory release), primary key (institution_id, delivery_created_at, id): a delivery and
 *   its attempts share a month and leave together. No foreign key between them: a partition of a
 *   referenced table cannot be dropped, and an attempt is only ever written by the statement that
 *   updates its delivery under its lease.
 * - webhook_delivery_key (not partitioned, never dropped by retention): every delivery's id →
 *   (institution_id, created_at), so a read by id (the job carries only the id) names the month,
 *   and the one-delivery-per-redemption-and-event rule, which has no time bound. A BEFORE INSERT
 *   trigger writes it for every insert into webhook_delivery and skips a row whose (institution,
 *   redemption, event) is taken (what `ON CONFLICT DO NOTHING` did; a partitioned table cannot
 *   hold that unique key without the month).
 *
 * The upgrade renames the old tables aside (`*_unpartitioned`), creates the partitioned ones under
 * the old names (months from 3 back, the default retention of 90 days, through two ahead) and moves
 * the pending deliveries with their attempts at once (a small set: the pending partial index), so
 * every delivery an attempt, a relay pass or a resume can touch is in the new tables when this
 * commits. The settled rest moves in batches with `npm run migrate -- --move-partitions`
 * (webhook_delivery_move(), called by the move command): each batch moves deliveries and their
 * attempts in one statement. Empty old tables (a new install) are dropped here.
 */
export class WebhookPartitions1795724862067 implements MigrationInterface {
  name = 'WebhookPartitions1795724862067';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_delivery RENAME TO webhook_delivery_unpartitioned;
      ALTER TABLE webhook_attempt RENAME TO webhook_attempt_unpartitioned;
      DROP TRIGGER webhook_delivery_outbox_notify ON webhook_delivery_unpartitioned;
      DO $$
      DECLARE r record;
      BEGIN
        -- The old tables' foreign keys go: deliveries move before their attempts' rows are deleted
        -- (no cascade between them), and dropping the emptied table later must not lock the tables
        -- it referred to (institution, redemption) while the service writes. Nothing but the move
        -- writes the old tables from here on.
        FOR r IN SELECT conrelid::regclass::text AS t, conname FROM pg_constraint
                  WHERE conrelid IN ('webhook_delivery_unpartitioned'::regclass, 'webhook_attempt_unpartitioned'::regclass)
                    AND contype = 'f' LOOP
          EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', r.t, r.conname);
        END LOOP;
        -- The old tables' constraint and index names free for the new tables.
        FOR r IN SELECT conrelid::regclass::text AS t, conname FROM pg_constraint
                  WHERE conrelid IN ('webhook_delivery_unpartitioned'::regclass, 'webhook_attempt_unpartitioned'::regclass)
                    AND contype IN ('p', 'u', 'c') LOOP
          EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I', r.t, r.conname, 'old_' || r.conname);
        END LOOP;
        FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                  WHERE i.indrelid IN ('webhook_delivery_unpartitioned'::regclass, 'webhook_attempt_unpartitioned'::regclass)
                    AND c.relname NOT LIKE 'old\\_%' LOOP
          EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname, 'old_' || r.relname);
        END LOOP;
      END $$;

      CREATE TABLE webhook_delivery_key (
        id uuid NOT NULL,
        institution_id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        redemption_id uuid,
        event text NOT NULL,
        CONSTRAINT webhook_delivery_key_pkey PRIMARY KEY (institution_id, id),
        CONSTRAINT webhook_delivery_key_event_unique UNIQUE (institution_id, redemption_id, event)
      );
      CREATE INDEX webhook_delivery_key_id_idx ON webhook_delivery_key (id);

      CREATE TABLE webhook_delivery (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL CONSTRAINT webhook_delivery_institution_id_fkey REFERENCES institution(id),
        redemption_id uuid,
        event text NOT NULL CONSTRAINT webhook_delivery_event_check
          CHECK (event IN ('redemption.completed', 'redemption.reversed', 'redemption.settled', 'webhook.test',
                           'claim.resolved', 'statement.closed')),
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CONSTRAINT webhook_delivery_status_check
          CHECK (status IN ('pending', 'delivered', 'failed', 'skipped')),
        attempt_count integer NOT NULL DEFAULT 0,
        redelivery_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        enqueued_at timestamptz,
        last_attempt_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        series_attempt_count integer NOT NULL DEFAULT 0,
        lease_token uuid,
        lease_until timestamptz,
        lease_started_at timestamptz,
        lease_url text,
        status_reason text,
        CONSTRAINT webhook_delivery_redemption_check CHECK ((redemption_id IS NULL) = (event NOT LIKE 'redemption.%')),
        CONSTRAINT webhook_delivery_pkey PRIMARY KEY (institution_id, created_at, id),
        CONSTRAINT webhook_delivery_redemption_id_fkey FOREIGN KEY (redemption_id, institution_id)
          REFERENCES redemption (id, institution_id)
      ) PARTITION BY RANGE (created_at);
      CREATE INDEX webhook_delivery_status_idx ON webhook_delivery (institution_id, status, created_at DESC, id DESC);
      CREATE INDEX webhook_delivery_event_idx ON webhook_delivery (institution_id, event, created_at DESC, id DESC);
      CREATE INDEX webhook_delivery_offer_idx ON webhook_delivery (institution_id, (payload->>'offer_id'), created_at DESC, id DESC);
      CREATE INDEX webhook_delivery_unqueued_idx ON webhook_delivery (created_at) WHERE status = 'pending' AND enqueued_at IS NULL;
      CREATE INDEX webhook_delivery_due_idx ON webhook_delivery (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX webhook_delivery_last_attempt_idx ON webhook_delivery (institution_id, last_attempt_at)
        WHERE status IN ('delivered', 'failed');
      CREATE INDEX webhook_delivery_failed_idx ON webhook_delivery (institution_id, created_at, id) WHERE status = 'failed';
      CREATE INDEX webhook_delivery_pending_idx ON webhook_delivery (institution_id, created_at, id) WHERE status = 'pending';
      CREATE TRIGGER webhook_delivery_outbox_notify AFTER INSERT ON webhook_delivery
        FOR EACH STATEMENT EXECUTE FUNCTION webhook_outbox_notify();

      -- Every delivery's key row, and the one delivery per (institution, redemption, event): a row
      -- whose key is taken by another delivery is skipped. While the old table still holds rows,
      -- a pair stored there counts as taken too.
      CREATE FUNCTION webhook_delivery_key_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE taken boolean;
      BEGIN
        IF NEW.redemption_id IS NOT NULL AND to_regclass('webhook_delivery_unpartitioned') IS NOT NULL THEN
          BEGIN
            EXECUTE 'SELECT EXISTS (SELECT 1 FROM webhook_delivery_unpartitioned WHERE redemption_id = $1 AND event = $2 AND id <> $3)'
              INTO taken USING NEW.redemption_id, NEW.event, NEW.id;
          EXCEPTION WHEN undefined_table THEN
            taken := false; -- dropped meanwhile by the move, every row of it moved: the key decides
          END;
          IF taken THEN RETURN NULL; END IF;
        END IF;
        INSERT INTO webhook_delivery_key (id, institution_id, created_at, redemption_id, event)
        VALUES (NEW.id, NEW.institution_id, NEW.created_at, NEW.redemption_id, NEW.event)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN RETURN NEW; END IF;
        -- The same delivery's key (kept by retention) lets it in; another delivery's does not.
        IF EXISTS (SELECT 1 FROM webhook_delivery_key WHERE institution_id = NEW.institution_id AND id = NEW.id
                      AND created_at = NEW.created_at) THEN
          RETURN NEW;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER webhook_delivery_key_insert BEFORE INSERT ON webhook_delivery
        FOR EACH ROW EXECUTE FUNCTION webhook_delivery_key_insert();

      CREATE TABLE webhook_attempt (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        delivery_id uuid NOT NULL,
        attempt_number integer NOT NULL,
        trigger text NOT NULL CONSTRAINT webhook_attempt_trigger_check CHECK (trigger IN ('automatic', 'manual')),
        url text,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        http_status integer,
        error_class text CONSTRAINT webhook_attempt_error_class_check
          CHECK (error_class IN ('timeout', 'dns', 'connection_refused', 'tls', 'blocked_address', 'http_status', 'network')),
        error_message text,
        response_excerpt text,
        request_headers jsonb,
        institution_id uuid NOT NULL,
        delivery_created_at timestamptz NOT NULL,
        CONSTRAINT webhook_attempt_pkey PRIMARY KEY (institution_id, delivery_created_at, id),
        CONSTRAINT webhook_attempt_number_unique UNIQUE (institution_id, delivery_created_at, delivery_id, attempt_number)
      ) PARTITION BY RANGE (delivery_created_at);

      -- One batch of the move: up to lim deliveries (all when null; only pending ones when asked)
      -- and their attempts, deleted from the old tables and inserted into the partitioned ones in
      -- one statement, so each row is in exactly one place at every commit. Rows another mover
      -- holds are skipped. Answers the deliveries moved.
      CREATE FUNCTION webhook_delivery_move(lim integer, pending_only boolean) RETURNS integer
      LANGUAGE plpgsql AS $$
      DECLARE taken integer; moved integer;
      BEGIN
        WITH batch AS (
          DELETE FROM webhook_delivery_unpartitioned
           WHERE id IN (SELECT id FROM webhook_delivery_unpartitioned
                         WHERE NOT pending_only OR status = 'pending'
                         ORDER BY id LIMIT lim FOR UPDATE SKIP LOCKED)
          RETURNING ${DELIVERY_COLUMNS}
        ), ins AS (
          INSERT INTO webhook_delivery (${DELIVERY_COLUMNS}) SELECT ${DELIVERY_COLUMNS} FROM batch RETURNING 1
        ), att AS (
          DELETE FROM webhook_attempt_unpartitioned a USING batch b WHERE a.delivery_id = b.id
          RETURNING ${ATTEMPT_COLUMNS.replace(/(\w+)/g, 'a.$1')}, b.institution_id, b.created_at AS delivery_created_at
        ), ains AS (
          INSERT INTO webhook_attempt (${ATTEMPT_COLUMNS}, institution_id, delivery_created_at)
          SELECT ${ATTEMPT_COLUMNS}, institution_id, delivery_created_at FROM att RETURNING 1
        )
        SELECT (SELECT count(*) FROM batch), (SELECT count(*) FROM ins) INTO taken, moved;
        -- A row the key trigger skipped would be lost: never commit such a batch.
        IF moved <> taken THEN
          RAISE EXCEPTION 'webhook_delivery_move: % deliveries taken, % inserted', taken, moved;
        END IF;
        RETURN moved;
      END $$;

      DO $$
      DECLARE
        month timestamp;
      BEGIN
        -- The months a delivery may be kept in at the default retention (90 days), through two ahead.
        FOR i IN -3..2 LOOP
          month := date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => i);
          EXECUTE format(
            'CREATE TABLE %I PARTITION OF webhook_delivery FOR VALUES FROM (%L) TO (%L)',
            'webhook_delivery_p' || to_char(month, 'YYYY_MM'),
            to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00',
            to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
          EXECUTE format(
            'CREATE TABLE %I PARTITION OF webhook_attempt FOR VALUES FROM (%L) TO (%L)',
            'webhook_attempt_p' || to_char(month, 'YYYY_MM'),
            to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00',
            to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
        END LOOP;
        -- Pending deliveries older than those months: their months too (attempts, the relay and a
        -- resume reach them by id from now on).
        FOR month IN SELECT DISTINCT date_trunc('month', created_at AT TIME ZONE 'UTC')
                       FROM webhook_delivery_unpartitioned
                      WHERE status = 'pending'
                        AND created_at < date_trunc('month', now() AT TIME ZONE 'UTC') - interval '3 months' LOOP
          EXECUTE format(
            'CREATE TABLE IF NOT EXISTS %I PARTITION OF webhook_delivery FOR VALUES FROM (%L) TO (%L)',
            'webhook_delivery_p' || to_char(month, 'YYYY_MM'),
            to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00',
            to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
          EXECUTE format(
            'CREATE TABLE IF NOT EXISTS %I PARTITION OF webhook_attempt FOR VALUES FROM (%L) TO (%L)',
            'webhook_attempt_p' || to_char(month, 'YYYY_MM'),
            to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00',
            to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
        END LOOP;
        PERFORM webhook_delivery_move(NULL, true);
        IF NOT EXISTS (SELECT 1 FROM webhook_delivery_unpartitioned) THEN
          DROP TABLE webhook_attempt_unpartitioned, webhook_delivery_unpartitioned;
          DROP FUNCTION webhook_delivery_move(integer, boolean);
        END IF;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        IF to_regclass('webhook_delivery_unpartitioned') IS NULL THEN
          CREATE TABLE webhook_delivery_unpartitioned (LIKE webhook_delivery INCLUDING DEFAULTS);
          CREATE TABLE webhook_attempt_unpartitioned (LIKE webhook_attempt INCLUDING DEFAULTS);
        END IF;
      END $$;
      INSERT INTO webhook_delivery_unpartitioned (${DELIVERY_COLUMNS}) SELECT ${DELIVERY_COLUMNS} FROM webhook_delivery;
      INSERT INTO webhook_attempt_unpartitioned (${ATTEMPT_COLUMNS}, institution_id, delivery_created_at)
        SELECT ${ATTEMPT_COLUMNS}, institution_id, delivery_created_at FROM webhook_attempt;
      DROP TABLE webhook_attempt, webhook_delivery, webhook_delivery_key;
      DROP FUNCTION webhook_delivery_key_insert();
      DROP FUNCTION IF EXISTS webhook_delivery_move(integer, boolean);
      ALTER TABLE webhook_delivery_unpartitioned RENAME TO webhook_delivery;
      ALTER TABLE webhook_attempt_unpartitioned RENAME TO webhook_attempt;
      ALTER TABLE webhook_attempt ALTER COLUMN institution_id DROP NOT NULL,
        ALTER COLUMN delivery_created_at DROP NOT NULL;
      DO $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT conrelid::regclass::text AS t, conname FROM pg_constraint
                  WHERE conrelid IN ('webhook_delivery'::regclass, 'webhook_attempt'::regclass) AND conname LIKE 'old\\_%' LOOP
          EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I', r.t, r.conname, substr(r.conname, 5));
        END LOOP;
        FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                  WHERE i.indrelid IN ('webhook_delivery'::regclass, 'webhook_attempt'::regclass)
                    AND c.relname LIKE 'old\\_%' LOOP
          EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname, substr(r.relname, 5));
        END LOOP;
        IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'webhook_delivery_pkey') THEN
          ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_pkey PRIMARY KEY (id);
          ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_event_unique UNIQUE (redemption_id, event);
          ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_status_check
            CHECK (status IN ('pending', 'delivered', 'failed', 'skipped'));
          ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_event_check
            CHECK (event IN ('redemption.completed', 'redemption.reversed', 'redemption.settled', 'webhook.test',
                             'claim.resolved', 'statement.closed')) NOT VALID;
          ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_redemption_check
            CHECK ((redemption_id IS NULL) = (event NOT LIKE 'redemption.%')) NOT VALID;
          CREATE INDEX webhook_delivery_report_idx ON webhook_delivery (institution_id, created_at DESC, id DESC);
          CREATE INDEX webhook_delivery_status_idx ON webhook_delivery (institution_id, status, created_at DESC, id DESC);
          CREATE INDEX webhook_delivery_event_idx ON webhook_delivery (institution_id, event, created_at DESC, id DESC);
          CREATE INDEX webhook_delivery_offer_idx ON webhook_delivery (institution_id, (payload->>'offer_id'), created_at DESC, id DESC);
          CREATE INDEX webhook_delivery_unqueued_idx ON webhook_delivery (created_at) WHERE status = 'pending' AND enqueued_at IS NULL;
          CREATE INDEX webhook_delivery_due_idx ON webhook_delivery (next_attempt_at) WHERE status = 'pending';
          CREATE INDEX webhook_delivery_last_attempt_idx ON webhook_delivery (institution_id, last_attempt_at)
            WHERE status IN ('delivered', 'failed');
          CREATE INDEX webhook_delivery_failed_idx ON webhook_delivery (institution_id, created_at, id) WHERE status = 'failed';
          CREATE INDEX webhook_delivery_pending_idx ON webhook_delivery (institution_id, created_at, id) WHERE status = 'pending';
          ALTER TABLE webhook_attempt ADD CONSTRAINT webhook_attempt_pkey PRIMARY KEY (id);
          ALTER TABLE webhook_attempt ADD CONSTRAINT webhook_attempt_number_unique UNIQUE (delivery_id, attempt_number);
          ALTER TABLE webhook_attempt ADD CONSTRAINT webhook_attempt_trigger_check CHECK (trigger IN ('automatic', 'manual'));
          ALTER TABLE webhook_attempt ADD CONSTRAINT webhook_attempt_error_class_check
            CHECK (error_class IN ('timeout', 'dns', 'connection_refused', 'tls', 'blocked_address', 'http_status', 'network'));
        END IF;
      END $$;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_institution_id_fkey
        FOREIGN KEY (institution_id) REFERENCES institution(id);
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_redemption_id_fkey
        FOREIGN KEY (redemption_id, institution_id) REFERENCES redemption (id, institution_id);
      ALTER TABLE webhook_attempt ADD CONSTRAINT webhook_attempt_delivery_id_fkey
        FOREIGN KEY (delivery_id) REFERENCES webhook_delivery(id) ON DELETE CASCADE;
      CREATE TRIGGER webhook_delivery_outbox_notify AFTER INSERT ON webhook_delivery
        FOR EACH STATEMENT EXECUTE FUNCTION webhook_outbox_notify();
    `);
  }
}
