import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { OFFER_BUDGET_JOIN, OFFER_TERMS_COLUMNS, OfferRow } from './offer-row';

export type VisibleOfferRow = OfferRow & {
  enrollment_id: string | null;
  enrollment_status: string | null;
  redemption_count: number | null;
  added_at: Date | null;
  goal_round: number | null;
  goal_progress: string | null;
  goal_spend: string | null;
};

/**
 * What a purchase is explained against (simulate, and matching's report while listened to): the
 * offers a cardholder could see at a merchant. Read without a lock.
 */
@Injectable()
export class VisibleOffersRepository {
  /**
   * With a merchant: every offer of it offered to the institution, and every offer of it the
   * cardholder is enrolled in (any status but expired). Without: the cardholder's active
   * enrollments. At most `limit`, by offer id (offer_merchant_idx, cardholder_offer_unique).
   */
  offersToEvaluate(
    m: EntityManager,
    institutionId: string,
    cardholderToken: string,
    merchantId: string | null,
    limit: number,
  ): Promise<VisibleOfferRow[]> {
    return m.query(
      merchantId
        ? `SELECT ${OFFER_TERMS_COLUMNS}, co.id AS enrollment_id, co.status AS enrollment_status, co.redemption_count, co.added_at,
                    co.goal_round, co.goal_progress, co.goal_spend
             FROM offer o ${OFFER_BUDGET_JOIN}
             LEFT JOIN cardholder_offer co ON co.offer_id = o.id AND co.institution_id = $1 AND co.cardholder_token = $2
                                          AND co.status <> 'expired'
            WHERE o.merchant_id = $3
              AND (co.id IS NOT NULL
                   OR (o.status = 'active'
                       AND (NOT o.targeted OR EXISTS (SELECT 1 FROM offer_target t WHERE t.offer_id = o.id AND t.institution_id = $1))))
            ORDER BY o.id
            LIMIT $4`
        : `SELECT ${OFFER_TERMS_COLUMNS}, co.id AS enrollment_id, co.status AS enrollment_status, co.redemption_count, co.added_at,
                    co.goal_round, co.goal_progress, co.goal_spend
             FROM cardholder_offer co JOIN offer o ON o.id = co.offer_id ${OFFER_BUDGET_JOIN}
            WHERE co.institution_id = $1 AND co.cardholder_token = $2 AND co.status = 'active' AND $3::uuid IS NULL
            ORDER BY o.id
            LIMIT $4`,
      [institutionId, cardholderToken, merchantId, limit],
    );
  }
}
