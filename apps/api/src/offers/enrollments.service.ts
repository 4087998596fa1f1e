import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HoldoutKeys } from '@app/core';
import { pgErrorCode } from '@app/db';
import {
  activationExpired,
  decideEnrollment,
  EnrollmentDecision,
  EnrollmentError,
  inHoldout,
  PROGRAM_DEFAULTS,
} from '@app/domain';
import { ApiError } from '../common/api-error';
import { EngagementRecorder } from './engagement-recorder.service';
import { AddOfferDto, EnrollmentResultDto } from './offers.dto';
import { rejectPii } from '../common/pii';
import { EnrollmentFactsRow, EnrollmentsRepository } from './enrollments.repository';

/** PostgreSQL lock_not_available: the cardholder's lock was not granted within its timeout. */
const PG_LOCK_NOT_AVAILABLE = '55P03';

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

/** POST /api/v1/offers/{id}/add: enrolls a cardholder, idempotently and race-free. */
@Injectable()
export class EnrollmentsService {
  constructor(
    private readonly db: DataSource,
    private readonly enrollments: EnrollmentsRepository,
    private readonly events: EngagementRecorder,
    private readonly holdoutKeys: HoldoutKeys,
  ) {}

  /**
   * Adds for one cardholder run one after the other under a per-cardholder advisory lock (adds
   * for different cardholders never wait for each other, except on a rare 64-bit hash collision,
   * which only serializes them). First try, two round trips: the facts without the lock, the
   * decision (libs/domain), and — for a new enrollment — one statement that takes the lock and
   * inserts only if the enrollment and the active count the decision read are unchanged. An
   * answer decided from those facts (refused, already added) stands as of the moment they were
   * read. Otherwise (a lapsed enrollment to replace, or a change under the lock) the add runs in
   * one transaction holding the lock: facts, decision, insert with ON CONFLICT DO NOTHING.
   */
  async add(
    institutionId: string,
    offerId: string,
    dto: AddOfferDto,
  ): Promise<EnrollmentResultDto> {
    rejectPii({ cardholder_token: dto.cardholder_token, card_token: dto.card_token });
    let result: EnrollmentResultDto;
    try {
      result =
        (await this.addUnlocked(institutionId, offerId, dto)) ??
        (await this.addLocked(institutionId, offerId, dto));
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
    if (result.status === 'added')
      this.events.recordAdd(institutionId, dto.cardholder_token, offerId);
    return result;
  }

  /** The first try; undefined when the add must be decided again under the lock. */
  private async addUnlocked(
    institutionId: string,
    offerId: string,
    dto: AddOfferDto,
  ): Promise<EnrollmentResultDto | undefined> {
    const token = dto.cardholder_token;
    const f = await this.enrollments.facts(institutionId, token, offerId);
    const decision = this.decide(institutionId, token, f, dto.segment);
    if (decision.outcome === 'refused') throw ERRORS[decision.error]();
    if (decision.outcome === 'already_added')
      return { status: 'already_added', cardholder_offer_id: decision.cardholderOfferId };
    if (decision.replaces) return undefined;
    const id = await this.enrollments.insertIfUnchanged(
      institutionId,
      token,
      offerId,
      dto.card_token ?? null,
      f.active_count,
    );
    return id ? { status: 'added', cardholder_offer_id: id } : undefined;
  }

  /** The add in one transaction holding the cardholder's lock. */
  private addLocked(
    institutionId: string,
    offerId: string,
    dto: AddOfferDto,
  ): Promise<EnrollmentResultDto> {
    const token = dto.cardholder_token;
    return this.db.transaction(async (m) => {
      await this.enrollments.lockCardholder(m, institutionId, token);
      const f = await this.enrollments.facts(institutionId, token, offerId, m);
      const decision = this.decide(institutionId, token, f, dto.segment);
      if (decision.outcome === 'refused') throw ERRORS[decision.error]();
      if (decision.outcome === 'already_added')
        return { status: 'already_added', cardholder_offer_id: decision.cardholderOfferId };
      // A lapsed enrollment is kept (its redemptions point at it) as `expired`; the new one
      // carries its redemption count (read under the row lock, after any matching that holds
      // it), so max_redemptions_per_cardholder still holds.
      const carried = decision.replaces ? await this.enrollments.expire(m, decision.replaces) : 0;
      const id = await this.enrollments.insert(m, {
        institutionId,
        offerId,
        token,
        cardToken: dto.card_token ?? null,
        redemptionCount: carried,
      });
      if (id) return { status: 'added', cardholder_offer_id: id };
      // Only possible if an enrollment was written by a path that does not take the lock.
      return {
        status: 'already_added',
        cardholder_offer_id: await this.enrollments.current(m, institutionId, token, offerId),
      };
    });
  }

  /** The domain's decision on one row of facts. */
  private decide(
    institutionId: string,
    token: string,
    f: EnrollmentFactsRow,
    segment: string | undefined,
  ): EnrollmentDecision {
    return decideEnrollment({
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
      heldOut: () =>
        inHoldout(this.holdoutKeys.of(institutionId), f.offer_id!, token, f.holdout_bps ?? 0),
      existingEnrollmentId: f.existing_id,
      // Only an enrollment still active can lapse; a redeemed one stays as it is.
      existingExpired:
        f.existing_status === 'active' &&
        activationExpired(f.existing_added_at!, f.activation_days, new Date(Number(f.now_ms))),
      activeCount: f.active_count,
      maxActiveOffers: f.max_active_offers ?? PROGRAM_DEFAULTS.maxActiveOffers,
      segment,
      nowMs: Number(f.now_ms),
    });
  }
}
