import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  evaluateOffer,
  explain,
  MatchingEnrollment,
  netAmount,
  NoMatchReason,
  OfferTerms,
  refundReverses,
  sourcesOf,
  toMajor,
  TransactionEvent,
} from '@app/domain';
import { MerchantRef, MerchantResolver } from '../merchants/merchant-resolver';
import { OFFER_TERMS_COLUMNS, OfferRow, toOfferTerms } from './offer-row';

export interface SimulatedEvaluation {
  offer_id: string;
  cardholder_offer_id: string | null;
  outcome: 'match' | 'no_match';
  reasons: NoMatchReason[];
  currency: string;
  cashback_amount: number;
  institution_payout_amount: number;
}

export interface SimulatedRefund {
  original_found: boolean;
  redemption_id: string | null;
  would_reverse: boolean;
}

export interface SimulationResult {
  matched: boolean;
  merchant: { id: string; name: string } | null;
  duplicate: boolean;
  evaluations: SimulatedEvaluation[];
  refund?: SimulatedRefund;
}

/** Offers and the cardholder's enrollment in each, at most this many evaluated. */
const MAX_EVALUATIONS = 100;

type Row = OfferRow & {
  enrollment_id: string | null;
  enrollment_status: string | null;
  redemption_count: number | null;
  added_at: Date | null;
};

/**
 * POST /api/v1/transactions/simulate: what matching would decide for this event now, and why,
 * with the same pure rules the worker allocates with (libs/domain). Read-only: nothing is written,
 * no budget is reserved, no webhook or settlement entry is created.
 *
 * Evaluated: every offer of the resolved merchant offered to the institution (not enrolled →
 * `not_enrolled`) and every enrollment of the cardholder in an offer of that merchant; when the
 * merchant is unresolved, the cardholder's active enrollments (each `merchant_mismatch`).
 */
@Injectable()
export class SimulationService {
  constructor(
    private readonly db: DataSource,
    private readonly merchants: MerchantResolver,
  ) {}

  async simulate(institutionId: string, event: TransactionEvent): Promise<SimulationResult> {
    const [dup, merchant] = await Promise.all([
      this.db.query(
        `SELECT 1 FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
        [institutionId, event.transactionRef],
      ),
      this.merchants.resolveTransaction(event),
    ]);
    const base = {
      merchant: merchant && { id: merchant.id, name: merchant.name },
      duplicate: dup.length > 0,
    };
    if (event.kind === 'refund')
      return {
        ...base,
        matched: false,
        evaluations: [],
        refund: await this.refund(institutionId, event),
      };
    return { ...base, ...(await this.purchase(institutionId, event, merchant)) };
  }

  private async purchase(
    institutionId: string,
    event: TransactionEvent,
    merchant: MerchantRef | null,
  ): Promise<Pick<SimulationResult, 'matched' | 'evaluations'>> {
    const [rows, rate, refunded]: [
      Row[],
      { rate: string; time_zone: string }[],
      { total: string }[],
    ] = await Promise.all([
      this.db.query(
        merchant
          ? `SELECT ${OFFER_TERMS_COLUMNS}, co.id AS enrollment_id, co.status AS enrollment_status, co.redemption_count, co.added_at
               FROM offer o
               LEFT JOIN cardholder_offer co ON co.offer_id = o.id AND co.institution_id = $1 AND co.cardholder_token = $2
              WHERE o.merchant_id = $3
                AND (co.id IS NOT NULL
                     OR (o.status = 'active'
                         AND (NOT o.targeted OR EXISTS (SELECT 1 FROM offer_target t WHERE t.offer_id = o.id AND t.institution_id = $1))))
              ORDER BY o.id
              LIMIT $4`
          : `SELECT ${OFFER_TERMS_COLUMNS}, co.id AS enrollment_id, co.status AS enrollment_status, co.redemption_count, co.added_at
               FROM cardholder_offer co JOIN offer o ON o.id = co.offer_id
              WHERE co.institution_id = $1 AND co.cardholder_token = $2 AND co.status = 'active' AND $3::uuid IS NULL
              ORDER BY o.id
              LIMIT $4`,
        [institutionId, event.cardholderToken, merchant?.id ?? null, MAX_EVALUATIONS],
      ),
      this.db.query(
        `SELECT service_share_rate::text AS rate, time_zone FROM program WHERE institution_id = $1`,
        [institutionId],
      ),
      this.db.query(
        `SELECT COALESCE(sum(amount), 0)::text AS total FROM transaction
          WHERE kind = 'refund' AND institution_id = $1 AND original_transaction_ref = $2`,
        [institutionId, event.transactionRef],
      ),
    ]);
    const shareRate = rate[0]?.rate ?? '0.5';
    const facts = {
      merchantId: merchant?.id ?? null,
      amount: netAmount(event.amount, [refunded[0]?.total ?? '0']),
      currency: event.currency,
      transactedAt: new Date(event.transactedAt),
      network: event.network,
      timeZone: rate[0]?.time_zone ?? 'UTC',
    };
    const offers = new Map<string, OfferTerms>();
    const evaluations = rows.map((r) => {
      const offer = toOfferTerms(r);
      offers.set(offer.id, offer);
      const enrollment: MatchingEnrollment | null = r.enrollment_id
        ? {
            id: r.enrollment_id,
            offerId: r.id,
            status: r.enrollment_status!,
            redemptionCount: r.redemption_count!,
            addedAt: r.added_at!,
          }
        : null;
      return evaluateOffer(facts, offer, enrollment, shareRate);
    });
    const explained = explain(evaluations, offers);
    return {
      matched: explained.some((e) => e.outcome === 'match'),
      evaluations: explained.map((e) => ({
        offer_id: e.offerId,
        cardholder_offer_id: e.enrollmentId,
        outcome: e.outcome,
        reasons: e.reasons,
        currency: e.reward.currency,
        cashback_amount: toMajor(e.reward.cashback, e.reward.currency),
        institution_payout_amount: toMajor(e.reward.institutionPayout, e.reward.currency),
      })),
    };
  }

  /** Whether this refund, stored now, would reverse its purchase's redemption. */
  private async refund(institutionId: string, event: TransactionEvent): Promise<SimulatedRefund> {
    const rows: {
      id: string;
      amount: string;
      refunded: string;
      redemption_id: string | null;
      redemption_status: string | null;
      currency: string | null;
      min_spend: string | null;
    }[] = await this.db.query(
      `SELECT t.id, t.amount::text AS amount,
                (SELECT COALESCE(sum(x.amount), 0)::text FROM transaction x
                  WHERE x.kind = 'refund' AND x.institution_id = t.institution_id AND x.original_transaction_ref = t.transaction_ref
                    AND x.transaction_ref <> $3) AS refunded,
                r.id AS redemption_id, r.status AS redemption_status, r.currency, o.min_spend
           FROM transaction t
           LEFT JOIN redemption r ON r.transaction_id = t.id
           LEFT JOIN offer o ON o.id = r.offer_id
          WHERE t.institution_id = $1 AND t.transaction_ref = $2 AND t.kind = 'purchase'`,
      [institutionId, event.originalTransactionRef, event.transactionRef],
    );
    const t = rows[0];
    if (!t) return { original_found: false, redemption_id: null, would_reverse: false };
    if (!t.redemption_id || !(sourcesOf('reversed') as string[]).includes(t.redemption_status!)) {
      return { original_found: true, redemption_id: t.redemption_id, would_reverse: false };
    }
    const net = netAmount(t.amount, [t.refunded, event.amount]);
    return {
      original_found: true,
      redemption_id: t.redemption_id,
      would_reverse: refundReverses(net, t.currency!, Number(t.min_spend)),
    };
  }
}
