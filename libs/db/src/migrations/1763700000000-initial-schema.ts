import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The whole initial data model (docs/decisions.md). Money columns are bigint minor units in the row's
 * currency; transaction.amount is numeric because a transaction may arrive without a currency
 * and is converted to the offer's minor units at matching time.
 */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE institution (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        plan text NOT NULL CHECK (plan IN ('starter', 'growth', 'enterprise')),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
        webhook_url text,
        webhook_secret_encrypted text,
        rate_limits jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE program (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL UNIQUE REFERENCES institution(id) ON DELETE CASCADE,
        supported_locales text[] NOT NULL DEFAULT '{en}'
          CHECK (cardinality(supported_locales) >= 1 AND supported_locales <@ ARRAY['en', 'es', 'pt-BR']),
        sort_order text NOT NULL DEFAULT 'featured'
          CHECK (sort_order IN ('featured', 'ending_soon', 'highest_cashback', 'newest')),
        max_active_offers integer NOT NULL DEFAULT 10 CHECK (max_active_offers >= 1),
        widget_feed_limit integer NOT NULL DEFAULT 20 CHECK (widget_feed_limit BETWEEN 1 AND 100),
        service_share_rate numeric(5, 4) NOT NULL DEFAULT 0.5 CHECK (service_share_rate BETWEEN 0 AND 1),
        settlement_hold_days integer NOT NULL DEFAULT 30 CHECK (settlement_hold_days >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE merchant (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        category text NOT NULL CHECK (category ~ '^[a-z][a-z0-9_]*$'),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX merchant_lower_name_idx ON merchant (lower(name));
      CREATE INDEX merchant_category_idx ON merchant (category);

      CREATE TABLE merchant_identifier (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        merchant_id uuid NOT NULL REFERENCES merchant(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('card_acceptor', 'pix_key', 'upi_vpa', 'codi', 'psp_merchant_id')),
        value text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT merchant_identifier_type_value_key UNIQUE (type, value)
      );
      CREATE INDEX merchant_identifier_merchant_idx ON merchant_identifier (merchant_id);

      CREATE TABLE offer (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        merchant_id uuid NOT NULL REFERENCES merchant(id),
        status text NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'ended')),
        translations jsonb NOT NULL,
        min_spend bigint NOT NULL DEFAULT 0 CHECK (min_spend >= 0),
        reward_type text NOT NULL DEFAULT 'fixed' CHECK (reward_type IN ('fixed', 'percent')),
        cashback_amount bigint NOT NULL CHECK (cashback_amount > 0),
        cashback_percent numeric(7, 4) CHECK (cashback_percent > 0 AND cashback_percent <= 100),
        merchant_fee_amount bigint NOT NULL DEFAULT 0 CHECK (merchant_fee_amount >= 0),
        currency char(3) NOT NULL,
        starts_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        budget_total bigint CHECK (budget_total > 0),
        budget_used bigint NOT NULL DEFAULT 0 CHECK (budget_used >= 0),
        segments text[] NOT NULL DEFAULT '{}',
        max_redemptions_per_cardholder integer NOT NULL DEFAULT 1 CHECK (max_redemptions_per_cardholder >= 1),
        priority integer NOT NULL DEFAULT 0,
        targeted boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT offer_window_check CHECK (starts_at < expires_at),
        CONSTRAINT offer_percent_check CHECK ((reward_type = 'percent') = (cashback_percent IS NOT NULL)),
        CONSTRAINT offer_budget_check CHECK (budget_total IS NULL OR budget_used <= budget_total)
      );
      CREATE INDEX offer_live_idx ON offer (expires_at, starts_at) WHERE status = 'active';
      CREATE INDEX offer_merchant_idx ON offer (merchant_id);

      -- Targeting: an offer with targeted = false is offered to every institution;
      -- otherwise only to the institutions listed here.
      CREATE TABLE offer_target (
        offer_id uuid NOT NULL REFERENCES offer(id) ON DELETE CASCADE,
        institution_id uuid NOT NULL REFERENCES institution(id) ON DELETE CASCADE,
        PRIMARY KEY (offer_id, institution_id)
      );
      CREATE INDEX offer_target_institution_idx ON offer_target (institution_id, offer_id);

      CREATE TABLE cardholder_offer (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id),
        offer_id uuid NOT NULL REFERENCES offer(id),
        cardholder_token text NOT NULL,
        card_token text,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'redeemed', 'expired')),
        redemption_count integer NOT NULL DEFAULT 0 CHECK (redemption_count >= 0),
        added_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT cardholder_offer_unique UNIQUE (institution_id, cardholder_token, offer_id)
      );
      CREATE INDEX cardholder_offer_offer_idx ON cardholder_offer (offer_id);

      CREATE TABLE transaction (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id),
        transaction_ref text NOT NULL,
        cardholder_token text NOT NULL,
        instrument_token text,
        instrument_type text CHECK (instrument_type IN ('card', 'wallet', 'account')),
        merchant_identifier text,
        merchant_identifier_type text
          CHECK (merchant_identifier_type IN ('card_acceptor', 'pix_key', 'upi_vpa', 'codi', 'psp_merchant_id')),
        merchant_id uuid,
        mcc text,
        merchant_descriptor text,
        network text,
        amount numeric(20, 4) NOT NULL,
        currency char(3),
        transacted_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        source text NOT NULL CHECK (source IN ('api', 'batch', 'csv')),
        kind text NOT NULL DEFAULT 'purchase' CHECK (kind IN ('purchase', 'refund')),
        original_transaction_ref text,
        status text NOT NULL DEFAULT 'received'
          CHECK (status IN ('received', 'matched', 'unmatched', 'merchant_unresolved')),
        processed_at timestamptz,
        CONSTRAINT transaction_ref_unique UNIQUE (institution_id, transaction_ref)
      );
      -- The relay finds rows committed but never matched (Redis down, crash before enqueue).
      CREATE INDEX transaction_unprocessed_idx ON transaction (received_at) WHERE status = 'received';
      -- Personalization reads a cardholder's history per merchant.
      CREATE INDEX transaction_cardholder_idx ON transaction (institution_id, cardholder_token, merchant_id);
      CREATE INDEX transaction_refund_of_idx ON transaction (institution_id, original_transaction_ref)
        WHERE kind = 'refund';

      CREATE TABLE redemption (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id),
        transaction_id uuid NOT NULL REFERENCES transaction(id),
        cardholder_offer_id uuid NOT NULL REFERENCES cardholder_offer(id),
        offer_id uuid NOT NULL REFERENCES offer(id),
        cardholder_token text NOT NULL,
        currency char(3) NOT NULL,
        purchase_amount bigint NOT NULL,
        cashback_amount bigint NOT NULL,
        merchant_funded_amount bigint NOT NULL,
        service_revenue_amount bigint NOT NULL,
        institution_payout_amount bigint NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'settled', 'reversed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz,
        reversed_at timestamptz,
        CONSTRAINT redemption_transaction_unique UNIQUE (transaction_id),
        CONSTRAINT redemption_split_check CHECK (merchant_funded_amount = service_revenue_amount + institution_payout_amount)
      );
      CREATE INDEX redemption_report_idx ON redemption (institution_id, created_at DESC, id DESC);
      CREATE INDEX redemption_enrollment_idx ON redemption (cardholder_offer_id);

      CREATE TABLE settlement_run (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        as_of timestamptz NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('schedule', 'operator')),
        settled_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE settlement_entry (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id),
        redemption_id uuid NOT NULL REFERENCES redemption(id),
        offer_id uuid NOT NULL REFERENCES offer(id),
        merchant_id uuid NOT NULL REFERENCES merchant(id),
        currency char(3) NOT NULL,
        merchant_funded_amount bigint NOT NULL,
        service_revenue_amount bigint NOT NULL,
        institution_payout_amount bigint NOT NULL,
        clawback_amount bigint,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'settled', 'reversed')),
        settlement_run_id uuid REFERENCES settlement_run(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz,
        reversed_at timestamptz,
        CONSTRAINT settlement_entry_redemption_unique UNIQUE (redemption_id),
        CONSTRAINT settlement_split_check CHECK (merchant_funded_amount = service_revenue_amount + institution_payout_amount)
      );
      CREATE INDEX settlement_entry_report_idx ON settlement_entry (institution_id, created_at DESC, id DESC);
      CREATE INDEX settlement_entry_status_report_idx ON settlement_entry (institution_id, status, created_at DESC, id DESC);
      CREATE INDEX settlement_entry_pending_idx ON settlement_entry (created_at) WHERE status = 'pending';

      CREATE TABLE portal_user (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id) ON DELETE CASCADE,
        email text NOT NULL,
        password_hash text NOT NULL,
        role text NOT NULL CHECK (role IN ('admin', 'member')),
        failed_login_count integer NOT NULL DEFAULT 0,
        locked_until timestamptz,
        last_login_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX portal_user_email_key ON portal_user (lower(email));
      CREATE INDEX portal_user_institution_idx ON portal_user (institution_id);

      CREATE TABLE session (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash text NOT NULL UNIQUE,
        user_id uuid NOT NULL REFERENCES portal_user(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz
      );
      CREATE INDEX session_user_idx ON session (user_id);

      CREATE TABLE api_key (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id) ON DELETE CASCADE,
        name text NOT NULL,
        key_hash text NOT NULL,
        hint text NOT NULL,
        scopes text[],
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_by_user_id uuid REFERENCES portal_user(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT api_key_hash_key UNIQUE (key_hash),
        CONSTRAINT api_key_scopes_check CHECK (scopes IS NULL OR scopes <@ ARRAY['offers', 'transactions', 'reporting'])
      );
      CREATE INDEX api_key_institution_idx ON api_key (institution_id, created_at DESC);
      CREATE INDEX api_key_expiring_idx ON api_key (expires_at) WHERE revoked_at IS NULL AND expires_at IS NOT NULL;

      -- Each expiry reminder (14, 3 and 0 days before) is sent once: the primary key enforces it.
      CREATE TABLE api_key_reminder (
        api_key_id uuid NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
        days_before integer NOT NULL CHECK (days_before IN (14, 3, 0)),
        sent_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (api_key_id, days_before)
      );

      CREATE TABLE security_event (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id) ON DELETE CASCADE,
        type text NOT NULL,
        actor text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        ip text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX security_event_report_idx ON security_event (institution_id, created_at DESC, id DESC);

      CREATE TABLE webhook_delivery (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id),
        redemption_id uuid NOT NULL REFERENCES redemption(id),
        event text NOT NULL CHECK (event IN ('redemption.completed', 'redemption.reversed')),
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'skipped')),
        attempt_count integer NOT NULL DEFAULT 0,
        redelivery_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        enqueued_at timestamptz,
        last_attempt_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_delivery_event_unique UNIQUE (redemption_id, event)
      );
      CREATE INDEX webhook_delivery_report_idx ON webhook_delivery (institution_id, created_at DESC, id DESC);
      CREATE INDEX webhook_delivery_status_idx ON webhook_delivery (institution_id, status, created_at DESC, id DESC);
      -- Outbox: deliveries committed but not yet handed to the queue.
      CREATE INDEX webhook_delivery_unqueued_idx ON webhook_delivery (created_at)
        WHERE status = 'pending' AND enqueued_at IS NULL;

      CREATE TABLE webhook_attempt (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        delivery_id uuid NOT NULL REFERENCES webhook_delivery(id) ON DELETE CASCADE,
        attempt_number integer NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('automatic', 'manual')),
        url text,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        http_status integer,
        error_class text CHECK (error_class IN ('timeout', 'dns', 'connection_refused', 'tls', 'blocked_address', 'http_status', 'network')),
        error_message text,
        response_excerpt text,
        CONSTRAINT webhook_attempt_number_unique UNIQUE (delivery_id, attempt_number)
      );

      CREATE TABLE inbox_message (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id) ON DELETE CASCADE,
        kind text NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        dedupe_key text,
        read_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT inbox_message_dedupe_unique UNIQUE (institution_id, dedupe_key)
      );
      CREATE INDEX inbox_message_report_idx ON inbox_message (institution_id, created_at DESC, id DESC);
      CREATE INDEX inbox_message_unread_idx ON inbox_message (institution_id) WHERE read_at IS NULL;

      CREATE TABLE csv_upload (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL REFERENCES institution(id) ON DELETE CASCADE,
        uploaded_by_user_id uuid REFERENCES portal_user(id) ON DELETE SET NULL,
        filename text NOT NULL,
        size_bytes integer NOT NULL,
        content bytea,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
        rows_total integer,
        rows_processed integer NOT NULL DEFAULT 0,
        accepted integer NOT NULL DEFAULT 0,
        duplicates integer NOT NULL DEFAULT 0,
        invalid jsonb NOT NULL DEFAULT '[]'::jsonb,
        blank_lines_skipped integer NOT NULL DEFAULT 0,
        error_message text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz
      );
      CREATE INDEX csv_upload_report_idx ON csv_upload (institution_id, created_at DESC, id DESC);

      CREATE TABLE engagement_event (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        institution_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('widget_view', 'impression', 'add_success')),
        cardholder_token text NOT NULL,
        offer_id uuid,
        occurred_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX engagement_event_funnel_idx ON engagement_event (institution_id, kind, occurred_at) INCLUDE (cardholder_token);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE IF EXISTS engagement_event, csv_upload, inbox_message, webhook_attempt, webhook_delivery,
        security_event, api_key_reminder, api_key, session, portal_user, settlement_entry, settlement_run,
        redemption, transaction, cardholder_offer, offer_target, offer, merchant_identifier, merchant,
        program, institution CASCADE;
    `);
  }
}
