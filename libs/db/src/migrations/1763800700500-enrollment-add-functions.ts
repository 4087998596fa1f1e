import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The add in two round trips (docs/performance.md):
 * - cardholder_active_offers(institution, token): the cardholder's offers that count toward the
 *   program's max_active_offers (enrollment active, offer not expired, activation window not
 *   over), the one definition both the add's facts and the insert below use;
 * - enrollment_insert_unchanged(…): under the cardholder's advisory lock (the lock every add
 *   takes, lock_timeout as given), inserts the enrollment only if what the caller decided on
 *   still holds — no enrollment in the offer that is not expired, and the same active count —
 *   and returns its id; NULL when anything changed (the caller then decides again under the lock).
 *   plpgsql, VOLATILE: each statement after the lock reads a snapshot taken after it, so adds that
 *   held the lock before are seen. The columns it writes are those of the add's own insert.
 */
export class EnrollmentAddFunctions1763800700500 implements MigrationInterface {
  name = 'EnrollmentAddFunctions1763800700500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION cardholder_active_offers(p_institution uuid, p_token text) RETURNS int
      LANGUAGE plpgsql STABLE AS $$
      BEGIN
        RETURN (SELECT count(*)::int
                  FROM cardholder_offer co JOIN offer a ON a.id = co.offer_id
                 WHERE co.institution_id = p_institution AND co.cardholder_token = p_token
                   AND co.status = 'active' AND a.expires_at > now()
                   AND (a.qualification->'activation_days' IS NULL
                        OR co.added_at + (a.qualification->>'activation_days')::int * interval '1 day' > now()));
      END $$`);
    await q.query(`
      CREATE FUNCTION enrollment_insert_unchanged(p_institution uuid, p_token text, p_offer uuid,
                                                  p_card_token text, p_active_count int, p_lock_timeout text)
      RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        v_id uuid;
      BEGIN
        PERFORM set_config('lock_timeout', p_lock_timeout, true);
        PERFORM pg_advisory_xact_lock(hashtextextended(p_institution::text || ':' || p_token, 0));
        IF EXISTS (SELECT 1 FROM cardholder_offer
                    WHERE institution_id = p_institution AND cardholder_token = p_token
                      AND offer_id = p_offer AND status <> 'expired')
           OR cardholder_active_offers(p_institution, p_token) <> p_active_count THEN
          RETURN NULL;
        END IF;
        INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, card_token, redemption_count)
        VALUES (p_institution, p_offer, p_token, p_card_token, 0)
        ON CONFLICT (institution_id, cardholder_token, offer_id) WHERE status <> 'expired' DO NOTHING
        RETURNING id INTO v_id;
        RETURN v_id;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP FUNCTION IF EXISTS enrollment_insert_unchanged(uuid, text, uuid, text, int, text)`,
    );
    await q.query(`DROP FUNCTION IF EXISTS cardholder_active_offers(uuid, text)`);
  }
}
