import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Right to erasure and of access (docs/privacy.md):
 * - the key scope `privacy` (never implied; api_key.scopes may now name it);
 * - cardholder_erasure: one row per erasure request, the record of who asked, when and what was
 *   erased. It holds the token only while the erasure is pending (the check says so): the worker
 *   clears it in the transaction that replaces the token everywhere else;
 * - erased_holdout_bucket: an erased cardholder's holdout bucket for each offer whose holdout is
 *   set or may still be, computed from the token at erasure and stored with the pseudonym, so the
 *   lift report keeps the group the cardholder was in (docs/lift.md);
 * - an index on (institution_id, cardholder_token) for each table that holds a token and had
 *   none (redemption, engagement_event with each of its partitions, and the old funnel table
 *   while its rows wait to be moved into partitions): an erasure finds every row by index.
 */
export class CardholderErasure1795713689108 implements MigrationInterface {
  name = 'CardholderErasure1795713689108';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_key DROP CONSTRAINT api_key_scopes_check;
      ALTER TABLE api_key ADD CONSTRAINT api_key_scopes_check
        CHECK (scopes IS NULL OR scopes <@ ARRAY['offers', 'transactions', 'reporting', 'privacy']);

      CREATE TABLE cardholder_erasure (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id),
        status text NOT NULL DEFAULT 'pending'
          CONSTRAINT cardholder_erasure_status_check CHECK (status IN ('pending', 'completed')),
        cardholder_token text,
        requested_by text NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        waiting_for text CONSTRAINT cardholder_erasure_waiting_for_check
          CHECK (waiting_for IN ('legal_hold', 'pending_deliveries')),
        waiting_deliveries integer NOT NULL DEFAULT 0,
        completed_at timestamptz,
        erased jsonb,
        CONSTRAINT cardholder_erasure_pkey PRIMARY KEY (id),
        CONSTRAINT cardholder_erasure_token_check
          CHECK ((status = 'pending') = (cardholder_token IS NOT NULL))
      );
      CREATE INDEX cardholder_erasure_due_idx ON cardholder_erasure (next_attempt_at)
        WHERE status = 'pending';
      CREATE INDEX cardholder_erasure_token_idx ON cardholder_erasure (institution_id, cardholder_token)
        WHERE status = 'pending';

      CREATE TABLE erased_holdout_bucket (
        institution_id uuid NOT NULL REFERENCES institution(id),
        offer_id uuid NOT NULL REFERENCES offer(id),
        cardholder_token text NOT NULL,
        bucket integer NOT NULL CONSTRAINT erased_holdout_bucket_range CHECK (bucket BETWEEN 0 AND 9999),
        CONSTRAINT erased_holdout_bucket_pkey PRIMARY KEY (institution_id, cardholder_token, offer_id)
      );

      CREATE INDEX redemption_cardholder_idx ON redemption (institution_id, cardholder_token);
      CREATE INDEX engagement_event_cardholder_idx ON engagement_event (institution_id, cardholder_token);
      -- The old funnel table, while its rows wait for the move into partitions (docs/retention.md).
      DO $$ BEGIN
        IF to_regclass('engagement_event_unpartitioned') IS NOT NULL THEN
          CREATE INDEX IF NOT EXISTS engagement_event_unpartitioned_cardholder_idx
            ON engagement_event_unpartitioned (institution_id, cardholder_token);
        END IF;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS engagement_event_unpartitioned_cardholder_idx;
      DROP INDEX IF EXISTS engagement_event_cardholder_idx;
      DROP INDEX IF EXISTS redemption_cardholder_idx;
      DROP TABLE IF EXISTS erased_holdout_bucket;
      DROP TABLE IF EXISTS cardholder_erasure;
      UPDATE api_key SET scopes = array_remove(scopes, 'privacy') WHERE 'privacy' = ANY(scopes);
      ALTER TABLE api_key DROP CONSTRAINT api_key_scopes_check;
      ALTER TABLE api_key ADD CONSTRAINT api_key_scopes_check
        CHECK (scopes IS NULL OR scopes <@ ARRAY['offers', 'transactions', 'reporting']);
    `);
  }
}
