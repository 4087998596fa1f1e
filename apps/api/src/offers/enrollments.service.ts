import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { pgErrorCode, returnedRows } from '@app/db';
import {
  activationExpired,
  decideEnrollment,
  EnrollmentError,
  PROGRAM_DEFAULTS,
} from '@app/domain';
import { ApiError } from '../common/api-error';
import { EngagementRecorder } from './engagement-recorder.service';
import { AddOfferDto, EnrollmentResultDto } from './offers.dto';
import { rejectPii } from './pii';
import { ENROLLMENT_FACTS_SQL } from './offer-statements';

/** PostgreSQL lock_not_available: the cardholder's lock was not granted within LOCK_TIMEOUT. */
const PG_LOCK_NOT_AVAILABLE = '55P03';
const LOCK_TIMEOUT = '5s';

interface FactsRow {
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
  existing_id: string | null;
  existing_status: string | null;
  existing_added_at: Date | null;
  activation_days: number | null;
  active_count: number;
  max_active_offers: number | null;
  now_ms: string;
}

const ERRORS: Record<EnrollmentError, () => ApiError> = {
  offer_not_found: () =>
    ApiError.notFound(
      'offer_not_found',
      'No such offer, or it is not offered to this institution.',
    ),
  offer_unavailable: () =>
    ApiError.conflict(
      'offer_unavailable',
      'The offer is not active, has expired or has no budget left.',
    ),
  segment_not_eligible: () =>
    ApiError.forbidden(
      'segment_not_eligible',
      'The offer is limited to segments that the request does not match.',
    ),
  max_active_offers: () =>
    ApiError.conflict(
      'max_active_offers',
      "The cardholder already holds the program's maximum of active offers.",
    ),
};

/** Default of program.max_active_offers (docs/offers.md), should the program row be missing. */

/** POST /api/v1/offers/{id}/add: enrolls a cardholder, idempotently and race-free. */
@Injectable()
export class EnrollmentsService {
  constructor(
    private readonly db: DataSource,
    private readonly events: EngagementRecorder,
  ) {}

  /**
   * Within one transaction holding a per-cardholder advisory lock, so concurrent adds for one
   * cardholder run one after the other: read the facts, decide (libs/domain), insert with ON
   * CONFLICT DO NOTHING. Adds for different cardholders never wait for each other (except on
   * a rare 64-bit hash collision, which only serializes them). `count: false` (portal previews)
   * records no add success.
   */
  async add(
    institutionId: string,
    offerId: string,
    dto: AddOfferDto,
    options: { count?: boolean } = {},
  ): Promise<EnrollmentResultDto> {
    rejectPii({ cardholder_token: dto.cardholder_token, card_token: dto.card_token });
    const token = dto.cardholder_token;
    let result: EnrollmentResultDto;
    try {
      result = await this.db.transaction(async (m) => {
        await m.query(
          `SELECT set_config('lock_timeout', $3, true), pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, 0))`,
          [institutionId, token, LOCK_TIMEOUT],
        );
        const [f]: FactsRow[] = await m.query(ENROLLMENT_FACTS_SQL, [
          institutionId,
          token,
          offerId,
        ]);
        const decision = decideEnrollment({
          offer:
            f.offer_id && f.offered
              ? {
                  status: f.status!,
                  startsAt: f.starts_at!.getTime(),
                  expiresAt: f.expires_at!.getTime(),
                  segments: f.segments ?? [],
                  budgetTotal: f.budget_total === null ? null : Number(f.budget_total),
                  budgetUsed: Number(f.budget_used),
                  cashbackAmount: Number(f.cashback_amount),
                  merchantFeeAmount: Number(f.merchant_fee_amount),
                }
              : null,
          existingEnrollmentId: f.existing_id,
          // Only an enrollment still active can lapse; a redeemed one stays as it is.
          existingExpired:
            f.existing_status === 'active' &&
            activationExpired(f.existing_added_at!, f.activation_days, new Date(Number(f.now_ms))),
          activeCount: f.active_count,
          maxActiveOffers: f.max_active_offers ?? PROGRAM_DEFAULTS.maxActiveOffers,
          segment: dto.segment,
          nowMs: Number(f.now_ms),
        });
        if (decision.outcome === 'refused') throw ERRORS[decision.error]();
        if (decision.outcome === 'already_added')
          return { status: 'already_added', cardholder_offer_id: decision.cardholderOfferId };
        // A lapsed enrollment is kept (its redemptions point at it) as `expired`; the new one
        // carries its redemption count (read under the row lock, after any matching that holds
        // it), so max_redemptions_per_cardholder still holds.
        let carried = 0;
        if (decision.replaces) {
          const [old]: { redemption_count: number }[] = returnedRows(
            await m.query(
              `UPDATE cardholder_offer SET status = 'expired', updated_at = now() WHERE id = $1 RETURNING redemption_count`,
              [decision.replaces],
            ),
          );
          carried = old?.redemption_count ?? 0;
        }
        const inserted: { id: string }[] = await m.query(
          `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, card_token, redemption_count)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (institution_id, cardholder_token, offer_id) WHERE status <> 'expired' DO NOTHING
           RETURNING id`,
          [institutionId, offerId, token, dto.card_token ?? null, carried],
        );
        if (inserted[0]) return { status: 'added', cardholder_offer_id: inserted[0].id };
        // Only possible if an enrollment was written by a path that does not take the lock.
        const [existing]: { id: string }[] = await m.query(
          `SELECT id FROM cardholder_offer WHERE institution_id = $1 AND cardholder_token = $2 AND offer_id = $3 AND status <> 'expired'`,
          [institutionId, token, offerId],
        );
        return { status: 'already_added', cardholder_offer_id: existing.id };
      });
    } catch (e) {
      if (pgErrorCode(e) === PG_LOCK_NOT_AVAILABLE) {
        throw new ApiError(
          HttpStatus.SERVICE_UNAVAILABLE,
          'enrollment_busy',
          'Too many concurrent adds for this cardholder; retry shortly.',
          undefined,
          { 'Retry-After': '1' },
        );
      }
      throw e;
    }
    if (result.status === 'added' && options.count !== false)
      this.events.recordAdd(institutionId, token, offerId);
    return result;
  }
}
