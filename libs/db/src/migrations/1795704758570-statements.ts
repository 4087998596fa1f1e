import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Institution statements (docs/statements.md).
 *
 * - statement_book: one row per institution and currency, the "open day" every movement reads
 *   FOR KEY SHARE and closing takes FOR UPDATE, so a movement commits either before a close (and
 *   is in it) or after (and lands in the next open day). It also carries the pending balance at
 *   the start of its open day and of its open month, and the time zone the open month opened with.
 * - statement_movement: every change to an institution's money, booked once, with what its line
 *   shows (merchant name, offer title, the purchase's reference) copied at booking, so renames,
 *   retention and erasure never change a line. No foreign keys: it is an append-only ledger that
 *   outlives the rows it was booked from.
 * - statement: closed periods only (an open one is computed live), with the checksum of its lines
 *   file; never updated. The CHECK states the identities.
 *
 * Movements are booked by statement-level triggers on settlement_entry, in the same transaction as
 * the change they record, whichever code path makes it (matching, refunds, card lifecycle, goals,
 * settlement runs, claims): earned (insert), reversed (pending → reversed), settled (pending →
 * settled), clawback (settled → reversed, the clawback amount).
 *
 * redemption.source: `matching`, or `claim` for a redemption a claim decided.
 *
 * Upgrade: each institution and currency with entries gets its book, opening today (in the
 * program's time zone) with the pending balance at this instant.
 */
export class Statements1795704758570 implements MigrationInterface {
  name = 'Statements1795704758570';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE redemption ADD COLUMN source text NOT NULL DEFAULT 'matching'
        CONSTRAINT redemption_source_check CHECK (source IN ('matching', 'claim'));

      CREATE TABLE statement_book (
        institution_id uuid NOT NULL REFERENCES institution(id),
        currency char(3) NOT NULL,
        open_day date NOT NULL,
        time_zone text NOT NULL,
        pending_opening bigint NOT NULL,
        month_pending_opening bigint NOT NULL,
        CONSTRAINT statement_book_pkey PRIMARY KEY (institution_id, currency)
      );

      CREATE TABLE statement_movement (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        institution_id uuid NOT NULL,
        currency char(3) NOT NULL,
        period_day date NOT NULL,
        type text NOT NULL CONSTRAINT statement_movement_type_check
          CHECK (type IN ('earned', 'reversed', 'settled', 'clawback')),
        booked_at timestamptz NOT NULL,
        amount bigint NOT NULL CONSTRAINT statement_movement_amount_check CHECK (amount >= 0),
        settlement_entry_id uuid NOT NULL,
        redemption_id uuid NOT NULL,
        offer_id uuid NOT NULL,
        merchant_id uuid NOT NULL,
        merchant_name text NOT NULL,
        offer_title text NOT NULL,
        transaction_ref text NOT NULL,
        merchant_funded_amount bigint NOT NULL,
        service_revenue_amount bigint NOT NULL,
        institution_payout_amount bigint NOT NULL,
        source text NOT NULL CONSTRAINT statement_movement_source_check CHECK (source IN ('matching', 'claim')),
        CONSTRAINT statement_movement_pkey PRIMARY KEY (id),
        CONSTRAINT statement_movement_once UNIQUE (settlement_entry_id, type)
      );
      -- A period's sums and its lines in file order (period_day, then booked_at: the same order
      -- as booked_at alone, because booked_at is read after the book's lock).
      CREATE INDEX statement_movement_period_idx
        ON statement_movement (institution_id, currency, period_day, booked_at, id);
      -- A merchant's invoice, in UTC days or months of booked_at.
      CREATE INDEX statement_movement_merchant_idx ON statement_movement (merchant_id, booked_at);

      CREATE TABLE statement (
        id uuid NOT NULL,
        institution_id uuid NOT NULL REFERENCES institution(id),
        currency char(3) NOT NULL,
        granularity text NOT NULL CONSTRAINT statement_granularity_check CHECK (granularity IN ('day', 'month')),
        period_start date NOT NULL,
        period_end date NOT NULL,
        time_zone text NOT NULL,
        pending_opening bigint NOT NULL,
        earned bigint NOT NULL,
        reversed bigint NOT NULL,
        settled bigint NOT NULL,
        pending_closing bigint NOT NULL,
        clawed_back bigint NOT NULL,
        net_payout bigint NOT NULL,
        movement_count integer NOT NULL,
        checksum char(64) NOT NULL,
        closed_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT statement_pkey PRIMARY KEY (id),
        CONSTRAINT statement_period_unique UNIQUE (institution_id, granularity, period_start, currency),
        CONSTRAINT statement_ties_out CHECK (
          pending_opening + earned - reversed - settled = pending_closing AND net_payout = settled - clawed_back)
      );

      CREATE FUNCTION statement_book_movements() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        entry_ids uuid[];
        types text[];
        amounts bigint[];
      BEGIN
        IF TG_OP = 'INSERT' THEN
          SELECT array_agg(n.id), array_agg('earned'::text), array_agg(n.institution_payout_amount)
            INTO entry_ids, types, amounts
            FROM new_entries n;
        ELSE
          SELECT array_agg(n.id),
                 array_agg(CASE WHEN o.status = 'settled' THEN 'clawback' ELSE n.status END),
                 array_agg(CASE WHEN o.status = 'settled'
                                THEN COALESCE(n.clawback_amount, n.institution_payout_amount)
                                ELSE n.institution_payout_amount END)
            INTO entry_ids, types, amounts
            FROM new_entries n JOIN old_entries o ON o.id = n.id
           WHERE (o.status, n.status) IN (('pending', 'settled'), ('pending', 'reversed'), ('settled', 'reversed'));
        END IF;
        IF entry_ids IS NULL THEN
          RETURN NULL;
        END IF;

        INSERT INTO statement_book (institution_id, currency, open_day, time_zone, pending_opening, month_pending_opening)
        SELECT DISTINCT e.institution_id, e.currency,
               (now() AT TIME ZONE COALESCE(p.time_zone, 'UTC'))::date, COALESCE(p.time_zone, 'UTC'), 0, 0
          FROM settlement_entry e
          LEFT JOIN program p ON p.institution_id = e.institution_id
         WHERE e.id = ANY(entry_ids)
           AND NOT EXISTS (SELECT 1 FROM statement_book b WHERE b.institution_id = e.institution_id AND b.currency = e.currency)
        ON CONFLICT DO NOTHING;

        -- In key order, so that two transactions never wait on each other's books. booked_at is
        -- read after this lock, so the file order (period_day, booked_at) is booked_at's order.
        PERFORM 1 FROM statement_book b
         WHERE (b.institution_id, b.currency) IN (
                 SELECT e.institution_id, e.currency FROM settlement_entry e WHERE e.id = ANY(entry_ids))
         ORDER BY b.institution_id, b.currency
           FOR KEY SHARE;

        INSERT INTO statement_movement (
          institution_id, currency, period_day, type, booked_at, amount, settlement_entry_id, redemption_id,
          offer_id, merchant_id, merchant_name, offer_title, transaction_ref, merchant_funded_amount,
          service_revenue_amount, institution_payout_amount, source)
        SELECT e.institution_id, e.currency, GREATEST(b.open_day, (clk.ts AT TIME ZONE b.time_zone)::date),
               c.type, clk.ts, c.amount, e.id, e.redemption_id, e.offer_id, e.merchant_id, m.name,
               COALESCE(o.translations -> p.supported_locales[1] ->> 'title',
                        (SELECT t.value ->> 'title' FROM jsonb_each(o.translations) t ORDER BY t.key LIMIT 1), ''),
               t.transaction_ref, e.merchant_funded_amount, e.service_revenue_amount, e.institution_payout_amount,
               r.source
          FROM unnest(entry_ids, types, amounts) AS c(entry_id, type, amount)
          JOIN settlement_entry e ON e.id = c.entry_id
          JOIN statement_book b ON b.institution_id = e.institution_id AND b.currency = e.currency
          JOIN redemption r ON r.id = e.redemption_id
          JOIN transaction t ON t.id = r.transaction_id
          JOIN merchant m ON m.id = e.merchant_id
          JOIN offer o ON o.id = e.offer_id
          LEFT JOIN program p ON p.institution_id = e.institution_id
          CROSS JOIN LATERAL (SELECT clock_timestamp() AS ts) clk;
        RETURN NULL;
      END
      $fn$;

      CREATE TRIGGER settlement_entry_books_earned AFTER INSERT ON settlement_entry
        REFERENCING NEW TABLE AS new_entries
        FOR EACH STATEMENT EXECUTE FUNCTION statement_book_movements();
      CREATE TRIGGER settlement_entry_books_changes AFTER UPDATE ON settlement_entry
        REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries
        FOR EACH STATEMENT EXECUTE FUNCTION statement_book_movements();
    `);

    await q.query(`
      INSERT INTO statement_book (institution_id, currency, open_day, time_zone, pending_opening, month_pending_opening)
      SELECT e.institution_id, e.currency,
             (now() AT TIME ZONE COALESCE(p.time_zone, 'UTC'))::date, COALESCE(p.time_zone, 'UTC'),
             COALESCE(sum(e.institution_payout_amount) FILTER (WHERE e.status = 'pending'), 0),
             COALESCE(sum(e.institution_payout_amount) FILTER (WHERE e.status = 'pending'), 0)
        FROM settlement_entry e
        LEFT JOIN program p ON p.institution_id = e.institution_id
       GROUP BY e.institution_id, e.currency, p.time_zone`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS settlement_entry_books_earned ON settlement_entry;
      DROP TRIGGER IF EXISTS settlement_entry_books_changes ON settlement_entry;
      DROP FUNCTION IF EXISTS statement_book_movements();
      DROP TABLE IF EXISTS statement;
      DROP TABLE IF EXISTS statement_movement;
      DROP TABLE IF EXISTS statement_book;
      ALTER TABLE redemption DROP COLUMN IF EXISTS source;
    `);
  }
}
