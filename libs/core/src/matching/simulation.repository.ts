import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PURCHASE_KINDS, type TransactionEvent } from '@app/domain';
import { chainRefundedSumSql } from './card-lifecycle.repository';
import { COUNTED_IDS } from './goal-progress.repository';
import { REFUND_ORIGINAL, refundedSumSql } from './matching.repository';
import { OFFER_TERMS_COLUMNS, OfferRow } from './offer-row';

export type SimulationOfferRow = OfferRow & {
  enrollment_id: string | null;
  enrollment_status: string | null;
  redemption_count: number | null;
  added_at: Date | null;
  goal_round: number | null;
  goal_progress: string | null;
  goal_spend: string | null;
};

export interface RefundedPurchaseRow {
  id: string;
  amount: string;
  refunded: string;
  redemption_id: string | null;
  redemption_status: string | null;
  currency: string | null;
  min_spend: string | null;
}

/** A goal offer's contribution of a purchase, with what a refund of it needs. */
export interface GoalContributionRow {
  cardholder_offer_id: string;
  offer_id: string;
  round: number;
  units: string;
  spend: string;
  open_round: number;
  goal_progress: string;
  goal_spend: string;
  goal_type: string;
  goal_target: string;
  min_spend: string;
  currency: string;
  round_units: string;
  round_spend: string;
  /** The round's live redemption, when the round was rewarded, and the target it was rewarded under. */
  redemption_id: string | null;
  redemption_goal_target: string | null;
}

/** The simulation's reads (it writes nothing); each an indexed lookup. */
@Injectable()
export class SimulationRepository {
  constructor(private readonly db: DataSource) {}

  async isStored(institutionId: string, transactionRef: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `SELECT 1 FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
      [institutionId, transactionRef],
    );
    return rows.length > 0;
  }

  /**
   * With a merchant: every offer of it offered to the institution, and every offer of it the
   * cardholder is enrolled in. Without: the cardholder's active enrollments. At most `limit`.
   */
  offersToEvaluate(
    institutionId: string,
    cardholderToken: string,
    merchantId: string | null,
    limit: number,
  ): Promise<SimulationOfferRow[]> {
    return this.db.query(
      merchantId
        ? `SELECT ${OFFER_TERMS_COLUMNS}, co.id AS enrollment_id, co.status AS enrollment_status, co.redemption_count, co.added_at,
                    co.goal_round, co.goal_progress, co.goal_spend
             FROM offer o
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
             FROM cardholder_offer co JOIN offer o ON o.id = co.offer_id
            WHERE co.institution_id = $1 AND co.cardholder_token = $2 AND co.status = 'active' AND $3::uuid IS NULL
            ORDER BY o.id
            LIMIT $4`,
      [institutionId, cardholderToken, merchantId, limit],
    );
  }

  /** The program's share rate (text) and time zone; undefined without a program row. */
  async program(institutionId: string): Promise<{ rate: string; time_zone: string } | undefined> {
    const rows: { rate: string; time_zone: string }[] = await this.db.query(
      `SELECT service_share_rate::text AS rate, time_zone FROM program WHERE institution_id = $1`,
      [institutionId],
    );
    return rows[0];
  }

  /** Audiences: the cardholder's latest purchase at the merchant before this one (null: none). */
  async lastPurchaseBefore(
    institutionId: string,
    event: TransactionEvent,
    merchantId: string | null,
  ): Promise<Date | null> {
    if (!merchantId) return null;
    const rows: { last: Date | null }[] = await this.db.query(
      `SELECT max(transacted_at) AS last FROM transaction
        WHERE institution_id = $1 AND cardholder_token = $2 AND merchant_id = $3 AND kind = ANY($6::text[])
          AND transacted_at < $4 AND transaction_ref <> $5`,
      [
        institutionId,
        event.cardholderToken,
        merchantId,
        event.transactedAt,
        event.transactionRef,
        PURCHASE_KINDS,
      ],
    );
    return rows[0]?.last ?? null;
  }

  /** The refunds already stored for the purchase (institution, ref), as decimal text. */
  async refunded(institutionId: string, transactionRef: string): Promise<string> {
    const rows: { total: string }[] = await this.db.query(
      `SELECT ${refundedSumSql('$1', '$2')}::text AS total`,
      [institutionId, transactionRef],
    );
    return rows[0]?.total ?? '0';
  }

  /**
   * The purchase a refund stands for, as matching resolves it (REFUND_ORIGINAL: a card chain's
   * record stands for the chain's rewarded record), its amount (a chain: the cleared amount) and
   * its refunds other than this one (a chain: those naming either of its refs), its redemption (if
   * any) and the offer's min_spend. A goal round's redemption is not reported here: its refunds
   * follow the goal's rule.
   */
  async purchaseOfRefund(
    institutionId: string,
    originalTransactionRef: string | null,
    refundRef: string,
  ): Promise<RefundedPurchaseRow | undefined> {
    const rows: RefundedPurchaseRow[] = await this.db.query(
      `SELECT p.id, COALESCE(c.cleared_amount, p.amount)::text AS amount,
              (CASE WHEN c.institution_id IS NULL
                    THEN ${refundedSumSql('p.institution_id', 'p.transaction_ref', ' AND f.transaction_ref <> $3')}
                    ELSE ${chainRefundedSumSql(' AND f.transaction_ref <> $3')} END)::text AS refunded,
              r.id AS redemption_id, r.status AS redemption_status, r.currency, o.min_spend
         FROM transaction t
         ${REFUND_ORIGINAL.chainJoin}
         JOIN transaction p ON p.id = ${REFUND_ORIGINAL.id}
         LEFT JOIN redemption r ON r.transaction_id = p.id AND r.goal_round IS NULL
         LEFT JOIN offer o ON o.id = r.offer_id
        WHERE t.institution_id = $1 AND t.transaction_ref = $2 AND ${REFUND_ORIGINAL.kinds}`,
      [institutionId, originalTransactionRef, refundRef],
    );
    return rows[0];
  }

  /**
   * What a purchase counted toward goal offers (goal_contribution primary key; a card chain's
   * record: what the chain's clearing counted, COUNTED_IDS as matching reads it), each with its
   * enrollment's open round, its round's totals (goal_contribution_round_idx) and the round's live
   * redemption (redemption_enrollment_idx).
   */
  goalContributionsOf(
    purchaseId: string,
    liveStatuses: readonly string[],
  ): Promise<GoalContributionRow[]> {
    return this.db.query(
      `WITH ${COUNTED_IDS}
       SELECT g.cardholder_offer_id, co.offer_id, g.round, g.units::text AS units, g.spend::text AS spend,
              co.goal_round AS open_round, co.goal_progress::text AS goal_progress, co.goal_spend::text AS goal_spend,
              o.goal_type, o.goal_target::text AS goal_target, o.min_spend::text AS min_spend, o.currency,
              s.units::text AS round_units, s.spend::text AS round_spend,
              lr.id AS redemption_id, COALESCE(lr.goal_target, o.goal_target)::text AS redemption_goal_target
         FROM counted_ids
         JOIN goal_contribution g ON g.transaction_id = counted_ids.id
         JOIN cardholder_offer co ON co.id = g.cardholder_offer_id
         JOIN offer o ON o.id = co.offer_id
         LEFT JOIN LATERAL (
           SELECT r.id, r.goal_target FROM redemption r
            WHERE r.cardholder_offer_id = g.cardholder_offer_id AND r.goal_round = g.round
              AND r.status = ANY($2::text[]) LIMIT 1) lr ON true
         CROSS JOIN LATERAL (
           SELECT sum(x.units) AS units, sum(x.spend) AS spend FROM goal_contribution x
            WHERE x.cardholder_offer_id = g.cardholder_offer_id AND x.round = g.round) s
        WHERE o.goal_type IS NOT NULL
        ORDER BY co.offer_id`,
      [[purchaseId], liveStatuses],
    );
  }
}
