import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Claims for missing rewards (docs/claims.md).
 *
 * - claim: one per (institution, offer, transaction_ref), the unique key a repeat and two
 *   claims at the same moment meet; its decision (status, reasons, the redemption it points at,
 *   who decided) and, for a purchase that is not stored, the evidence an operator reviews. No
 *   foreign key to the redemption or the transaction: retention may remove those, the claim stays.
 * - program.claim_window_days: how long after a purchase it may be claimed (default 90, 1–365);
 *   a column with a constant default, added without rewriting the table.
 * - api_key.scopes may hold `claims` (never implied by a NULL list: libs/domain api-key.ts).
 * - transaction.source `claim`: a purchase stored by an operator's approval of a claim's evidence.
 * - webhook_delivery.event `claim.resolved`, which names no redemption: a delivery has a
 *   redemption exactly when its event is a redemption event.
 *
 * The widened CHECKs on the large tables (transaction, webhook_delivery) are added NOT VALID:
 * every existing row met the narrower CHECK they replace, so there is nothing to validate, and the
 * migration's transaction never scans those tables while it holds their lock (the running version
 * keeps posting during the deploy). New rows are checked as always.
 */
export class Claims1795713803388 implements MigrationInterface {
  name = 'Claims1795713803388';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE claim (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL,
        offer_id uuid NOT NULL,
        transaction_ref text NOT NULL,
        cardholder_token text NOT NULL,
        status text NOT NULL CONSTRAINT claim_status_check
          CHECK (status IN ('approved', 'rewarded_other_offer', 'already_rewarded', 'rejected', 'pending_review')),
        reasons text[] NOT NULL DEFAULT '{}',
        redemption_id uuid,
        decided_by text CONSTRAINT claim_decided_by_check CHECK (decided_by IN ('rules', 'operator')),
        purchase jsonb,
        note text,
        decision_note text,
        created_at timestamptz NOT NULL DEFAULT now(),
        decided_at timestamptz,
        CONSTRAINT claim_pkey PRIMARY KEY (id),
        CONSTRAINT claim_institution_id_fkey FOREIGN KEY (institution_id) REFERENCES institution(id),
        CONSTRAINT claim_offer_id_fkey FOREIGN KEY (offer_id) REFERENCES offer(id),
        CONSTRAINT claim_unique UNIQUE (institution_id, offer_id, transaction_ref),
        CONSTRAINT claim_decided_check CHECK ((status = 'pending_review') = (decided_by IS NULL))
      );
      CREATE INDEX claim_list_idx ON claim (institution_id, created_at, id);
      CREATE INDEX claim_status_idx ON claim (status, created_at, id);

      ALTER TABLE program ADD COLUMN claim_window_days int NOT NULL DEFAULT 90
        CONSTRAINT program_claim_window_days_check CHECK (claim_window_days BETWEEN 1 AND 365);

      ALTER TABLE api_key DROP CONSTRAINT api_key_scopes_check;
      ALTER TABLE api_key ADD CONSTRAINT api_key_scopes_check
        CHECK (scopes IS NULL OR scopes <@ ARRAY['offers', 'transactions', 'reporting', 'privacy', 'claims']);

      ALTER TABLE transaction DROP CONSTRAINT transaction_source_check;
      ALTER TABLE transaction ADD CONSTRAINT transaction_source_check
        CHECK (source IN ('api', 'batch', 'csv', 'claim')) NOT VALID;

      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_event_check;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_event_check
        CHECK (event IN ('redemption.completed', 'redemption.reversed', 'redemption.settled', 'webhook.test',
                         'claim.resolved')) NOT VALID;
      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_redemption_check;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_redemption_check
        CHECK ((redemption_id IS NULL) = (event NOT LIKE 'redemption.%')) NOT VALID;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM webhook_delivery WHERE event = 'claim.resolved';
      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_redemption_check;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_redemption_check
        CHECK ((redemption_id IS NULL) = (event = 'webhook.test')) NOT VALID;
      ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_event_check;
      ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_event_check
        CHECK (event IN ('redemption.completed', 'redemption.reversed', 'redemption.settled', 'webhook.test'));
      ALTER TABLE transaction DROP CONSTRAINT transaction_source_check;
      ALTER TABLE transaction ADD CONSTRAINT transaction_source_check
        CHECK (source IN ('api', 'batch', 'csv')) NOT VALID;
      UPDATE api_key SET scopes = array_remove(scopes, 'claims') WHERE 'claims' = ANY(scopes);
      ALTER TABLE api_key DROP CONSTRAINT api_key_scopes_check;
      ALTER TABLE api_key ADD CONSTRAINT api_key_scopes_check
        CHECK (scopes IS NULL OR scopes <@ ARRAY['offers', 'transactions', 'reporting', 'privacy']);
      ALTER TABLE program DROP COLUMN IF EXISTS claim_window_days;
      DROP TABLE IF EXISTS claim;
    `);
  }
}
