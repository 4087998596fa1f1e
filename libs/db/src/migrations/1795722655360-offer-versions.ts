import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Offer versions and maker–checker (docs/offers.md, Versions and approval).
 *
 * - offer.status gains `in_review` (submitted, waiting for an approver).
 * - offer.terms_from: when the live terms took effect (their approval); null = they apply to
 *   every purchase (offers from before versions, and edits made with OFFER_APPROVAL=off). Matching
 *   judges a purchase made before it by the version live then (offer_version).
 * - offer_version: every version of an offer's terms (reward, caps, budget, window, rules,
 *   qualification, goal, targeting, holdout), with who wrote and who approved it. Reference data
 *   like the offer itself, belonging to no institution: keyed by (offer_id, number). `terms` holds
 *   the offer's columns as stored (minor units); `changes` the difference from the version before
 *   in the API's words; `editors` the operators who changed it since its last approval (none of
 *   them may approve it).
 */
export class OfferVersions1795722655360 implements MigrationInterface {
  name = 'OfferVersions1795722655360';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE offer DROP CONSTRAINT offer_status_check;
      ALTER TABLE offer ADD CONSTRAINT offer_status_check
        CHECK (status IN ('draft', 'in_review', 'active', 'paused', 'ended'));
      ALTER TABLE offer ADD COLUMN terms_from timestamptz`);
    await q.query(`
      CREATE TABLE offer_version (
        offer_id uuid NOT NULL REFERENCES offer (id) ON DELETE CASCADE,
        number int NOT NULL CHECK (number > 0),
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        status text NOT NULL CHECK (status IN ('draft', 'in_review', 'approved', 'superseded')),
        terms jsonb NOT NULL,
        changes jsonb NOT NULL DEFAULT '[]',
        created_by jsonb NOT NULL,
        changed_by jsonb NOT NULL,
        editors uuid[] NOT NULL DEFAULT '{}',
        approved_by jsonb,
        approved_at timestamptz,
        effective_from timestamptz,
        review_note text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT offer_version_pkey PRIMARY KEY (offer_id, number),
        CONSTRAINT offer_version_id_key UNIQUE (offer_id, id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE offer_version;
      ALTER TABLE offer DROP COLUMN terms_from;
      UPDATE offer SET status = 'draft' WHERE status = 'in_review';
      ALTER TABLE offer DROP CONSTRAINT offer_status_check;
      ALTER TABLE offer ADD CONSTRAINT offer_status_check CHECK (status IN ('draft', 'active', 'paused', 'ended'))`);
  }
}
