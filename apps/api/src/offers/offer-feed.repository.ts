import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  PURCHASE_KINDS,
  type OfferTranslation,
  type SortOrder,
  type StoredQualification,
} from '@app/domain';
import { prepared } from '@app/db';
import {
  CARDHOLDER_SQL,
  CATALOGUE_SQL,
  PERSONALIZED_CARDHOLDER_SQL,
  POPULARITY_SQL,
} from './offer-statements';

/** Every feed read runs one of them: each prepared once per direct connection. */
const CARDHOLDER = prepared(CARDHOLDER_SQL);
const PERSONALIZED_CARDHOLDER = prepared(PERSONALIZED_CARDHOLDER_SQL);

/** A feed request's own rows (CARDHOLDER_SQL, PERSONALIZED_CARDHOLDER_SQL). */
export interface CardholderRow {
  catalogue_version: string;
  sort_order: SortOrder | null;
  supported_locales: string[] | null;
  widget_feed_limit: number | null;
  /** [offer_id, status, redemption_count, added_at, goal_progress][] (enrollments not `expired`) */
  enrollments: [string, string, number, string, number][];
  /** [merchant_id, category, purchases][] (only when personalizing) */
  history: [string, string, number][] | null;
}

/** A live offer as the catalogue loads it (CATALOGUE_SQL). */
export interface CatalogueRow {
  id: string;
  merchant_id: string;
  merchant_name: string;
  category: string;
  translations: Record<string, OfferTranslation>;
  min_spend: string;
  reward_type: string;
  cashback_amount: string;
  cashback_percent: string | null;
  currency: string;
  starts_at: Date;
  expires_at: Date;
  segments: string[];
  max_redemptions_per_cardholder: number;
  priority: number;
  targets: string[] | null;
  qualification: StoredQualification | null;
  goal_type: string | null;
  goal_target: string | null;
  holdout_bps: number;
}

/**
 * The feed's reads (GET /api/v1/offers): the cardholder's round trip, the live catalogue, the
 * popularity counts and the latest purchases an audience rule reads. The first three are the
 * statements of offer-statements.js, which the bench runs too.
 */
@Injectable()
export class OfferFeedRepository {
  constructor(private readonly db: DataSource) {}

  /** The catalogue version, the program and the cardholder's enrollments (and history). */
  async cardholder(
    institutionId: string,
    cardholderToken: string,
    personalize: boolean,
  ): Promise<CardholderRow> {
    const [row]: CardholderRow[] = await this.db.query(
      personalize ? PERSONALIZED_CARDHOLDER : CARDHOLDER,
      [institutionId, cardholderToken],
    );
    return row;
  }

  /** Every live offer with budget left for one more redemption. */
  liveOffers(): Promise<CatalogueRow[]> {
    return this.db.query(CATALOGUE_SQL);
  }

  /** Enrollments per offer among one institution's cardholders. */
  popularity(institutionId: string): Promise<{ offer_id: string; n: number }[]> {
    return this.db.query(POPULARITY_SQL, [institutionId]);
  }

  /**
   * The cardholder's latest purchase before `before` at each of `merchantIds`
   * (transaction_cardholder_idx: institution_id, cardholder_token, merchant_id).
   */
  lastPurchases(
    institutionId: string,
    cardholderToken: string,
    merchantIds: string[],
    before: Date,
  ): Promise<{ merchant_id: string; last: Date }[]> {
    return this.db.query(
      `SELECT merchant_id, max(transacted_at) AS last FROM transaction
        WHERE institution_id = $1 AND cardholder_token = $2 AND merchant_id = ANY($3::uuid[])
          AND kind = ANY($5::text[]) AND transacted_at < $4
        GROUP BY merchant_id`,
      [institutionId, cardholderToken, merchantIds, before, PURCHASE_KINDS],
    );
  }
}
