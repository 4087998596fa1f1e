import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Offer feed support (docs/offers.md).
 *
 * 1. `offer_catalogue_version`: a sequence bumped whenever something the feed shows may have
 *    changed (an offer created, deleted or edited, targeting changed, a merchant renamed or
 *    recategorized, an offer's budget crossing the "room for one more redemption" line either
 *    way). The api keeps the live offers in memory and reloads them when the value it reads with
 *    each feed request differs from the one it loaded with. Plain budget consumption by matching
 *    (budget_used moving while room remains) does not bump it: the WHEN clause filters those rows
 *    without calling any function. The triggers are deferred constraint triggers so the bump
 *    happens at commit time, keeping the window in which a reader sees the new value before the
 *    new rows tiny (the api also reloads at least once a minute to close it).
 * 2. `cardholder_offer (institution_id, offer_id)`: popularity per offer within an institution
 *    (personalized feed), read as an index-only scan.
 */
export class OfferFeed1763700001000 implements MigrationInterface {
  name = 'OfferFeed1763700001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE SEQUENCE offer_catalogue_version;

      CREATE FUNCTION offer_catalogue_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM nextval('offer_catalogue_version');
        RETURN NULL;
      END
      $$;

      CREATE CONSTRAINT TRIGGER offer_catalogue_insert_delete
        AFTER INSERT OR DELETE ON offer DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION offer_catalogue_bump();

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

      CREATE CONSTRAINT TRIGGER offer_target_catalogue
        AFTER INSERT OR UPDATE OR DELETE ON offer_target DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION offer_catalogue_bump();

      CREATE CONSTRAINT TRIGGER merchant_catalogue
        AFTER UPDATE ON merchant DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN ((OLD.name, OLD.category) IS DISTINCT FROM (NEW.name, NEW.category))
        EXECUTE FUNCTION offer_catalogue_bump();

      CREATE INDEX cardholder_offer_popularity_idx ON cardholder_offer (institution_id, offer_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS cardholder_offer_popularity_idx;
      DROP TRIGGER IF EXISTS merchant_catalogue ON merchant;
      DROP TRIGGER IF EXISTS offer_target_catalogue ON offer_target;
      DROP TRIGGER IF EXISTS offer_catalogue_update ON offer;
      DROP TRIGGER IF EXISTS offer_catalogue_insert_delete ON offer;
      DROP FUNCTION IF EXISTS offer_catalogue_bump();
      DROP SEQUENCE IF EXISTS offer_catalogue_version;
    `);
  }
}
