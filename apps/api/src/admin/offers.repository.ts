import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { cursorColumn, KeysetAfter, keysetSql } from '@app/db';
import type { StoredQualification } from '@app/domain';

export interface OfferRow {
  id: string;
  merchant_id: string;
  institution_ids: string[];
  status: string;
  translations: Record<string, { title: string; description?: string }>;
  min_spend: string;
  reward_type: string;
  cashback_amount: string;
  cashback_percent: string | null;
  merchant_fee_amount: string;
  currency: string;
  starts_at: Date;
  expires_at: Date;
  budget_total: string | null;
  budget_used: string;
  segments: string[];
  max_redemptions_per_cardholder: number;
  priority: number;
  qualification: StoredQualification | null;
  goal_type: string | null;
  goal_target: string | null;
  holdout_bps: number;
  /** Active at or after starts_at at some time: has_been_live, or active and started now. */
  went_live: boolean;
  /** A live offer's version waiting for approval (draft or in review), or null. */
  pending_version: { id: string; number: number; status: string; changed_by: unknown } | null;
  created_at: Date;
  updated_at: Date;
  cursor_t: string;
}

/** A new offer's columns, money in minor units, qualification as stored JSON text. */
export interface NewOffer {
  merchant_id: string;
  status: string;
  translations: string;
  min_spend: number;
  reward_type: string;
  cashback_amount: number;
  cashback_percent: number | null;
  merchant_fee_amount: number;
  currency: string;
  starts_at: string;
  expires_at: string;
  budget_total: number | null;
  segments: string[];
  max_redemptions_per_cardholder: number;
  priority: number;
  targeted: boolean;
  qualification: string | null;
  goal_type: string | null;
  goal_target: number | null;
  holdout_bps: number;
}

/**
 * An update's columns: null keeps a column (COALESCE), except where a `set…` flag says the
 * column is written even when null. reward_type, cashback_percent and the window are always
 * written (the service merged them with the stored offer).
 */
export interface OfferChanges {
  status: string | null;
  translations: string | null;
  min_spend: number | null;
  reward_type: string;
  cashback_amount: number | null;
  cashback_percent: number | null | undefined;
  merchant_fee_amount: number | null;
  starts_at: string;
  expires_at: string;
  setBudgetTotal: boolean;
  budget_total: number | null;
  segments: string[] | null;
  max_redemptions_per_cardholder: number | null;
  priority: number | null;
  targeted: boolean | null;
  setQualification: boolean;
  qualification: string | null;
  setGoal: boolean;
  goal_type: string | null;
  goal_target: number | null;
  /** null keeps the holdout. */
  holdout_bps: number | null;
}

const SELECT = `
  SELECT o.*, ${cursorColumn('o')},
         (SELECT b.budget_used FROM offer_budget b WHERE b.offer_id = o.id) AS budget_used,
         (o.has_been_live OR (o.status = 'active' AND o.starts_at <= now())) AS went_live,
         COALESCE((SELECT array_agg(t.institution_id ORDER BY t.institution_id) FROM offer_target t WHERE t.offer_id = o.id), '{}') AS institution_ids,
         (SELECT jsonb_build_object('id', v.id, 'number', v.number, 'status', v.status, 'changed_by', v.changed_by)
            FROM offer_version v
           WHERE v.offer_id = o.id AND v.status IN ('draft', 'in_review') AND o.status NOT IN ('draft', 'in_review')
           ORDER BY v.number DESC LIMIT 1) AS pending_version
    FROM offer o`;

/** Every statement over offer and offer_target for the operators' API. */
@Injectable()
export class OffersRepository {
  constructor(private readonly db: DataSource) {}

  /** Inserts the offer; returns its id. */
  async insert(o: NewOffer, m: EntityManager): Promise<string> {
    const [row] = await m.query(
      `INSERT INTO offer (merchant_id, status, translations, min_spend, reward_type, cashback_amount, cashback_percent,
                          merchant_fee_amount, currency, starts_at, expires_at, budget_total, segments,
                          max_redemptions_per_cardholder, priority, targeted, qualification, goal_type, goal_target, holdout_bps)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) RETURNING id`,
      [
        o.merchant_id,
        o.status,
        o.translations,
        o.min_spend,
        o.reward_type,
        o.cashback_amount,
        o.cashback_percent,
        o.merchant_fee_amount,
        o.currency,
        o.starts_at,
        o.expires_at,
        o.budget_total,
        o.segments,
        o.max_redemptions_per_cardholder,
        o.priority,
        o.targeted,
        o.qualification,
        o.goal_type,
        o.goal_target,
        o.holdout_bps,
      ],
    );
    return row.id as string;
  }

  /**
   * The offer and its budget counter, both locked for the rest of `m`'s transaction: a change of
   * budget_total is checked against the budget used while no redemption can spend it (matching
   * locks the counter), and matching's next statement sees the new total.
   */
  async findForUpdate(id: string, m: EntityManager): Promise<OfferRow | undefined> {
    await m.query(`SELECT 1 FROM offer_budget WHERE offer_id = $1 FOR UPDATE`, [id]);
    const [row]: OfferRow[] = await m.query(`${SELECT} WHERE o.id = $1 FOR UPDATE OF o`, [id]);
    return row;
  }

  async update(id: string, c: OfferChanges, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE offer SET
         status = COALESCE($2, status),
         translations = COALESCE($3::jsonb, translations),
         min_spend = COALESCE($4, min_spend),
         reward_type = $5,
         cashback_amount = COALESCE($6, cashback_amount),
         cashback_percent = $7,
         merchant_fee_amount = COALESCE($8, merchant_fee_amount),
         starts_at = $9,
         -- Ending an offer closes its window now: purchases after this moment never match,
         -- while late-arriving purchases made before it still do.
         expires_at = CASE WHEN $2 = 'ended'
                           THEN GREATEST(LEAST($10::timestamptz, now()), $9::timestamptz + interval '1 millisecond')
                           ELSE $10::timestamptz END,
         budget_total = CASE WHEN $11 THEN $12::bigint ELSE budget_total END,
         segments = COALESCE($13, segments),
         max_redemptions_per_cardholder = COALESCE($14, max_redemptions_per_cardholder),
         priority = COALESCE($15, priority),
         targeted = COALESCE($16, targeted),
         qualification = CASE WHEN $17 THEN $18::jsonb ELSE qualification END,
         goal_type = CASE WHEN $19 THEN $20 ELSE goal_type END,
         goal_target = CASE WHEN $19 THEN $21::bigint ELSE goal_target END,
         holdout_bps = COALESCE($22, holdout_bps),
         -- Read with the values before this update: was it live until now?
         has_been_live = has_been_live OR (status = 'active' AND starts_at <= now()),
         updated_at = now()
       WHERE id = $1`,
      [
        id,
        c.status,
        c.translations,
        c.min_spend,
        c.reward_type,
        c.cashback_amount,
        c.cashback_percent,
        c.merchant_fee_amount,
        c.starts_at,
        c.expires_at,
        c.setBudgetTotal,
        c.budget_total,
        c.segments,
        c.max_redemptions_per_cardholder,
        c.priority,
        c.targeted,
        c.setQualification,
        c.qualification,
        c.setGoal,
        c.goal_type,
        c.goal_target,
        c.holdout_bps,
      ],
    );
  }

  /** Submit and reject move a new offer between draft and in_review. */
  async setStatus(id: string, status: 'draft' | 'in_review', m: EntityManager): Promise<void> {
    await m.query(`UPDATE offer SET status = $2, updated_at = now() WHERE id = $1`, [id, status]);
  }

  async find(id: string, m: EntityManager = this.db.manager): Promise<OfferRow | undefined> {
    const rows: OfferRow[] = await m.query(`${SELECT} WHERE o.id = $1`, [id]);
    return rows[0];
  }

  listPage(
    filter: { status?: string; merchant_id?: string },
    after: KeysetAfter | null,
    limit: number,
  ): Promise<OfferRow[]> {
    const page = keysetSql({
      alias: 'o',
      after,
      limit,
      params: [filter.status ?? null, filter.merchant_id ?? null],
    });
    return this.db.query(
      `${SELECT}
        WHERE ($1::text IS NULL OR o.status = $1) AND ($2::uuid IS NULL OR o.merchant_id = $2)
          ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }

  /** Whether any cardholder has added the offer (cardholder_offer_offer_idx). */
  async anyEnrollment(offerId: string, m: EntityManager): Promise<boolean> {
    const [{ added }] = await m.query(
      `SELECT EXISTS (SELECT 1 FROM cardholder_offer WHERE offer_id = $1) AS added`,
      [offerId],
    );
    return added as boolean;
  }

  /** Whether the merchant exists and how many of `institutionIds` do, in one round trip. */
  async references(
    merchantId: string,
    institutionIds: string[],
    m: EntityManager,
  ): Promise<{ merchant: boolean; known: number }> {
    const [row] = await m.query(
      `SELECT EXISTS (SELECT 1 FROM merchant WHERE id = $1) AS merchant,
              (SELECT count(*)::int FROM institution WHERE id = ANY($2::uuid[])) AS known`,
      [merchantId, institutionIds],
    );
    return row as { merchant: boolean; known: number };
  }

  /** Replaces the offer's targeting with `institutionIds` (none: offered to every institution). */
  async setTargets(offerId: string, institutionIds: string[], m: EntityManager): Promise<void> {
    await m.query(`DELETE FROM offer_target WHERE offer_id = $1`, [offerId]);
    if (institutionIds.length) {
      await m.query(
        `INSERT INTO offer_target (offer_id, institution_id) SELECT $1, unnest($2::uuid[])`,
        [offerId, institutionIds],
      );
    }
  }
}
