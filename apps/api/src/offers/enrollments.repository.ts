import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { prepared, returnedRows } from '@app/db';
import { ENROLLMENT_FACTS_SQL } from './offer-statements';

/** Every add runs these two: prepared once per direct connection. */
const FACTS = prepared(ENROLLMENT_FACTS_SQL);
const INSERT_IF_UNCHANGED = prepared(
  `SELECT enrollment_insert_unchanged($1, $2, $3, $4, $5, $6) AS id`,
);

/** Everything an add decides on (ENROLLMENT_FACTS_SQL). */
export interface EnrollmentFactsRow {
  offer_id: string | null;
  offered: boolean | null;
  status: string | null;
  starts_at: Date | null;
  expires_at: Date | null;
  segments: string[] | null;
  budget_total: string | null;
  budget_used: string | null;
  cashback_amount: string | null;
  merchant_fee_amount: string | null;
  holdout_bps: number | null;
  existing_id: string | null;
  existing_status: string | null;
  existing_added_at: Date | null;
  activation_days: number | null;
  active_count: number;
  max_active_offers: number | null;
  now_ms: string;
}

/** How long an add waits for the cardholder's lock before 503 enrollment_busy. */
export const ENROLLMENT_LOCK_TIMEOUT = '5s';

/** The statements of an add (enrollments.service.ts). */
@Injectable()
export class EnrollmentsRepository {
  constructor(private readonly db: DataSource) {}

  /** The add's facts: one statement, outside a transaction or inside `m`'s. */
  async facts(
    institutionId: string,
    token: string,
    offerId: string,
    m: EntityManager = this.db.manager,
  ): Promise<EnrollmentFactsRow> {
    const [f]: EnrollmentFactsRow[] = await m.query(FACTS, [institutionId, token, offerId]);
    return f;
  }

  /**
   * One statement, its own transaction: under the cardholder's lock, inserts the enrollment if
   * there is still none in the offer and the active count is still `activeCount` (the facts the
   * add was decided on); the new id, or null when either changed.
   */
  async insertIfUnchanged(
    institutionId: string,
    token: string,
    offerId: string,
    cardToken: string | null,
    activeCount: number,
  ): Promise<string | null> {
    const [row]: { id: string | null }[] = await this.db.query(INSERT_IF_UNCHANGED, [
      institutionId,
      token,
      offerId,
      cardToken,
      activeCount,
      ENROLLMENT_LOCK_TIMEOUT,
    ]);
    return row.id;
  }

  /** Within `m`'s transaction: the cardholder's lock, waited for at most ENROLLMENT_LOCK_TIMEOUT. */
  async lockCardholder(m: EntityManager, institutionId: string, token: string): Promise<void> {
    await m.query(
      `SELECT set_config('lock_timeout', $3, true), pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, 0))`,
      [institutionId, token, ENROLLMENT_LOCK_TIMEOUT],
    );
  }

  /** Marks a lapsed enrollment expired; its redemption count (read under the row lock). */
  async expire(m: EntityManager, enrollmentId: string): Promise<number> {
    const [old]: { redemption_count: number }[] = returnedRows(
      await m.query(
        `UPDATE cardholder_offer SET status = 'expired', updated_at = now() WHERE id = $1 RETURNING redemption_count`,
        [enrollmentId],
      ),
    );
    return old?.redemption_count ?? 0;
  }

  /** Inserts the enrollment unless one not expired exists; the new id, or null. */
  async insert(
    m: EntityManager,
    e: {
      institutionId: string;
      offerId: string;
      token: string;
      cardToken: string | null;
      redemptionCount: number;
    },
  ): Promise<string | null> {
    const inserted: { id: string }[] = await m.query(
      `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, card_token, redemption_count)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (institution_id, cardholder_token, offer_id) WHERE status <> 'expired' DO NOTHING
       RETURNING id`,
      [e.institutionId, e.offerId, e.token, e.cardToken, e.redemptionCount],
    );
    return inserted[0]?.id ?? null;
  }

  /** The cardholder's enrollment in the offer that is not expired. */
  async current(
    m: EntityManager,
    institutionId: string,
    token: string,
    offerId: string,
  ): Promise<string> {
    const [existing]: { id: string }[] = await m.query(
      `SELECT id FROM cardholder_offer WHERE institution_id = $1 AND cardholder_token = $2 AND offer_id = $3 AND status <> 'expired'`,
      [institutionId, token, offerId],
    );
    return existing.id;
  }
}
