import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The offer budget's counter leaves offer for a table of its own, offer_budget (one row per offer,
 * made by a trigger on offer's insert). offer is a reference table (schema-classes.ts): read by
 * every institution and, under a distribution by institution, copied to every node, so a write to
 * it goes to every node; budget_used was written by every redemption. offer_budget stays on the
 * coordinator (docs/scaling.md, step 5). The rule that spends it keeps its one home
 * (libs/domain/src/budget.ts); the reservation's guard moves with the counter
 * (MatchingRepository.applyBudget).
 *
 * The feed's catalogue still changes when an offer's room for one more redemption appears or
 * goes: offer_catalogue_update loses its budget_used condition and offer_budget_catalogue, on the
 * counter, bumps the catalogue version at the same crossing.
 *
 * The previous release reads and writes offer.budget_used, which is gone: its feed requests fail
 * until the new release replaces it, and its workers are stopped before this migration
 * (CHANGELOG), else the transactions they fail are quarantined as match_failed. Nothing is spent
 * twice: the counter has one home at any time.
 */
export class OfferBudget1795723153146 implements MigrationInterface {
  name = 'OfferBudget1795723153146';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE offer_budget (
        offer_id uuid PRIMARY KEY REFERENCES offer (id) ON DELETE CASCADE,
        budget_used bigint NOT NULL DEFAULT 0 CHECK (budget_used >= 0)
      );
      INSERT INTO offer_budget (offer_id, budget_used) SELECT id, budget_used FROM offer;

      CREATE FUNCTION offer_budget_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO offer_budget (offer_id) VALUES (NEW.id);
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER offer_budget_row AFTER INSERT ON offer
        FOR EACH ROW EXECUTE FUNCTION offer_budget_row();

      -- The catalogue's crossing of "room for one more redemption", read against the offer's terms.
      CREATE FUNCTION offer_budget_catalogue_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM offer o WHERE o.id = NEW.offer_id AND o.budget_total IS NOT NULL
                      AND (o.budget_total - OLD.budget_used >= o.cashback_amount + o.merchant_fee_amount)
                          <> (o.budget_total - NEW.budget_used >= o.cashback_amount + o.merchant_fee_amount)) THEN
          PERFORM nextval('offer_catalogue_version');
        END IF;
        RETURN NULL;
      END
      $$;
      CREATE CONSTRAINT TRIGGER offer_budget_catalogue
        AFTER UPDATE ON offer_budget DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (OLD.budget_used IS DISTINCT FROM NEW.budget_used)
        EXECUTE FUNCTION offer_budget_catalogue_bump();

      DROP TRIGGER offer_catalogue_update ON offer;
      CREATE CONSTRAINT TRIGGER offer_catalogue_update
        AFTER UPDATE ON offer DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN (
          (OLD.merchant_id, OLD.status, OLD.translations, OLD.min_spend, OLD.reward_type, OLD.cashback_amount,
           OLD.cashback_percent, OLD.merchant_fee_amount, OLD.currency, OLD.starts_at, OLD.expires_at,
           OLD.budget_total, OLD.segments, OLD.max_redemptions_per_cardholder, OLD.priority, OLD.targeted)
          IS DISTINCT FROM
          (NEW.merchant_id, NEW.status, NEW.translations, NEW.min_spend, NEW.reward_type, NEW.cashback_amount,
           NEW.cashback_percent, NEW.merchant_fee_amount, NEW.currency, NEW.starts_at, NEW.expires_at,
           NEW.budget_total, NEW.segments, NEW.max_redemptions_per_cardholder, NEW.priority, NEW.targeted)
        )
        EXECUTE FUNCTION offer_catalogue_bump();

      ALTER TABLE offer DROP COLUMN budget_used`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE offer ADD COLUMN budget_used bigint NOT NULL DEFAULT 0 CHECK (budget_used >= 0),
        ADD CONSTRAINT offer_budget_check CHECK (budget_total IS NULL OR budget_used <= budget_total);
      UPDATE offer o SET budget_used = b.budget_used FROM offer_budget b WHERE b.offer_id = o.id;
      DROP TRIGGER offer_catalogue_update ON offer;
      CREATE CONSTRAINT TRIGGER offer_catalogue_update
        AFTER UPDATE ON offer DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN (
          (OLD.merchant_id, OLD.status, OLD.translations, OLD.min_spend, OLD.reward_type, OLD.cashback_amount,
           OLD.cashback_percent, OLD.merchant_fee_amount, OLD.currency, OLD.starts_at, OLD.expires_at,
           OLD.budget_total, OLD.segments, OLD.max_redemptions_per_cardholder, OLD.priority, OLD.targeted)
          IS DISTINCT FROM
          (NEW.merchant_id, NEW.status, NEW.translations, NEW.min_spend, NEW.reward_type, NEW.cashback_amount,
           NEW.cashback_percent, NEW.merchant_fee_amount, NEW.currency, NEW.starts_at, NEW.expires_at,
           NEW.budget_total, NEW.segments, NEW.max_redemptions_per_cardholder, NEW.priority, NEW.targeted)
          OR (NEW.budget_total IS NOT NULL
              AND (OLD.budget_total - OLD.budget_used >= OLD.cashback_amount + OLD.merchant_fee_amount)
                  <> (NEW.budget_total - NEW.budget_used >= NEW.cashback_amount + NEW.merchant_fee_amount))
        )
        EXECUTE FUNCTION offer_catalogue_bump();
      DROP TRIGGER offer_budget_row ON offer;
      DROP FUNCTION offer_budget_row();
      DROP TABLE offer_budget;
      DROP FUNCTION offer_budget_catalogue_bump()`);
  }
}
