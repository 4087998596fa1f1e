import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import { cursorColumn, keysetSql } from '@app/db';
import {
  Audience,
  Channel,
  fitsCurrency,
  qualificationTerms,
  StoredQualification,
  toMajor,
  toMinor,
} from '@app/domain';
import { ApiError, ErrorDetail } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import { QualificationDto } from '../common/qualification.dto';
import { AdminOfferDto, CreateOfferDto, GoalDto, UpdateOfferDto } from './offers.dto';

interface OfferRow {
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
  created_at: Date;
  updated_at: Date;
  cursor_t: string;
}

const SELECT = `
  SELECT o.*, ${cursorColumn('o')},
         COALESCE((SELECT array_agg(t.institution_id ORDER BY t.institution_id) FROM offer_target t WHERE t.offer_id = o.id), '{}') AS institution_ids
    FROM offer o`;

const MONEY_FIELDS = [
  'min_spend',
  'cashback_amount',
  'merchant_fee_amount',
  'budget_total',
] as const;

/** Operators' offer catalogue: rewards, windows, budgets, segments and targeting. */
@Injectable()
export class OffersAdminService {
  private readonly keyset: Keyset;

  constructor(
    private readonly db: DataSource,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.secretsKey, 'admin:offers');
  }

  async create(dto: CreateOfferDto): Promise<AdminOfferDto> {
    const rewardType = dto.reward_type ?? 'fixed';
    this.check({ ...dto, reward_type: rewardType }, dto.currency);
    checkQualification(dto.qualification);
    checkGoal(dto.goal, dto.currency);
    const id = await this.db.transaction(async (m) => {
      await this.checkReferences(m, dto.merchant_id, dto.institution_ids);
      const [row] = await m.query(
        `INSERT INTO offer (merchant_id, status, translations, min_spend, reward_type, cashback_amount, cashback_percent,
                            merchant_fee_amount, currency, starts_at, expires_at, budget_total, segments,
                            max_redemptions_per_cardholder, priority, targeted, qualification, goal_type, goal_target)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id`,
        [
          dto.merchant_id,
          dto.status,
          JSON.stringify(dto.translations),
          toMinor(dto.min_spend, dto.currency),
          rewardType,
          toMinor(dto.cashback_amount, dto.currency),
          dto.cashback_percent ?? null,
          toMinor(dto.merchant_fee_amount ?? 0, dto.currency),
          dto.currency,
          dto.starts_at,
          dto.expires_at,
          dto.budget_total == null ? null : toMinor(dto.budget_total, dto.currency),
          dto.segments ?? [],
          dto.max_redemptions_per_cardholder ?? 1,
          dto.priority ?? 0,
          (dto.institution_ids?.length ?? 0) > 0,
          toStored(dto.qualification, dto.currency),
          dto.goal?.type ?? null,
          goalTarget(dto.goal, dto.currency),
        ],
      );
      await this.setTargets(m, row.id, dto.institution_ids ?? []);
      return row.id as string;
    });
    return this.get(id);
  }

  async update(id: string, dto: UpdateOfferDto): Promise<AdminOfferDto> {
    await this.db.transaction(async (m) => {
      const [cur]: OfferRow[] = await m.query(`${SELECT} WHERE o.id = $1 FOR UPDATE OF o`, [id]);
      if (!cur) throw ApiError.notFound('offer_not_found', 'No such offer.');
      const c = cur.currency;
      const merged = {
        reward_type: dto.reward_type ?? cur.reward_type,
        cashback_percent:
          dto.cashback_percent !== undefined
            ? dto.cashback_percent
            : cur.cashback_percent === null
              ? undefined
              : Number(cur.cashback_percent),
        starts_at: dto.starts_at ?? cur.starts_at.toISOString(),
        expires_at: dto.expires_at ?? cur.expires_at.toISOString(),
        min_spend: dto.min_spend,
        cashback_amount: dto.cashback_amount,
        merchant_fee_amount: dto.merchant_fee_amount,
        budget_total: dto.budget_total,
      };
      this.check(merged, c);
      checkQualification(dto.qualification);
      checkGoal(dto.goal, c);
      if (dto.goal !== undefined && (dto.goal?.type ?? null) !== cur.goal_type)
        await this.checkGoalChange(m, id);
      if (dto.budget_total != null && toMinor(dto.budget_total, c) < Number(cur.budget_used)) {
        throw ApiError.validation([
          {
            field: 'budget_total',
            message: `must be at least the budget already used (${toMajor(cur.budget_used, c)})`,
          },
        ]);
      }
      if (dto.institution_ids) await this.checkReferences(m, cur.merchant_id, dto.institution_ids);
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
           updated_at = now()
         WHERE id = $1`,
        [
          id,
          dto.status ?? null,
          dto.translations ? JSON.stringify(dto.translations) : null,
          dto.min_spend === undefined ? null : toMinor(dto.min_spend, c),
          merged.reward_type,
          dto.cashback_amount === undefined ? null : toMinor(dto.cashback_amount, c),
          merged.reward_type === 'percent' ? merged.cashback_percent : null,
          dto.merchant_fee_amount === undefined ? null : toMinor(dto.merchant_fee_amount, c),
          merged.starts_at,
          merged.expires_at,
          dto.budget_total !== undefined,
          dto.budget_total == null ? null : toMinor(dto.budget_total, c),
          dto.segments ?? null,
          dto.max_redemptions_per_cardholder ?? null,
          dto.priority ?? null,
          dto.institution_ids ? dto.institution_ids.length > 0 : null,
          dto.qualification !== undefined,
          toStored(dto.qualification, c),
          dto.goal !== undefined,
          dto.goal?.type ?? null,
          goalTarget(dto.goal, c),
        ],
      );
      if (dto.institution_ids) await this.setTargets(m, id, dto.institution_ids);
    });
    return this.get(id);
  }

  async get(id: string): Promise<AdminOfferDto> {
    const rows: OfferRow[] = await this.db.query(`${SELECT} WHERE o.id = $1`, [id]);
    if (!rows[0]) throw ApiError.notFound('offer_not_found', 'No such offer.');
    return toDto(rows[0]);
  }

  async list(
    limit: number,
    cursor?: string,
    filter: { status?: string; merchant_id?: string } = {},
  ): Promise<Page<AdminOfferDto>> {
    const page = keysetSql({
      alias: 'o',
      after: this.keyset.decode(cursor),
      limit,
      params: [filter.status ?? null, filter.merchant_id ?? null],
    });
    const rows: OfferRow[] = await this.db.query(
      `${SELECT}
        WHERE ($1::text IS NULL OR o.status = $1) AND ($2::uuid IS NULL OR o.merchant_id = $2)
          ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
    return this.keyset.page(rows, limit, toDto);
  }

  /** Rules that span fields: reward type vs percent, the window, decimals of the currency. */
  private check(
    o: {
      reward_type: string;
      cashback_percent?: number | null;
      starts_at: string;
      expires_at: string;
      min_spend?: number;
      cashback_amount?: number;
      merchant_fee_amount?: number;
      budget_total?: number | null;
    },
    currency: string,
  ): void {
    const details: ErrorDetail[] = [];
    if (o.reward_type === 'percent' && o.cashback_percent == null) {
      details.push({ field: 'cashback_percent', message: 'is required for a percent offer' });
    }
    if (o.reward_type === 'fixed' && o.cashback_percent != null) {
      details.push({ field: 'cashback_percent', message: 'applies only to percent offers' });
    }
    if (Date.parse(o.starts_at) >= Date.parse(o.expires_at)) {
      details.push({ field: 'expires_at', message: 'must be after starts_at' });
    }
    for (const f of MONEY_FIELDS) {
      const v = o[f];
      if (v != null && !fitsCurrency(v, currency))
        details.push({ field: f, message: `has more decimal places than ${currency} allows` });
    }
    if (details.length) throw ApiError.validation(details);
  }

  /**
   * A goal's type (or whether the offer has one) is fixed once a cardholder has added the offer:
   * counted progress is in the goal's units, and a rewarded round is reversed by the goal's rule.
   * The target may change (it applies from the next counted purchase). cardholder_offer_offer_idx.
   */
  private async checkGoalChange(m: EntityManager, offerId: string): Promise<void> {
    const [{ added }] = await m.query(
      `SELECT EXISTS (SELECT 1 FROM cardholder_offer WHERE offer_id = $1) AS added`,
      [offerId],
    );
    if (added)
      throw ApiError.validation([
        {
          field: 'goal',
          message:
            'type cannot be set, changed or removed once cardholders have added the offer (the target can); create a new offer',
        },
      ]);
  }

  private async checkReferences(
    m: EntityManager,
    merchantId: string,
    institutionIds: string[] = [],
  ): Promise<void> {
    const [{ merchant, known }] = await m.query(
      `SELECT EXISTS (SELECT 1 FROM merchant WHERE id = $1) AS merchant,
              (SELECT count(*)::int FROM institution WHERE id = ANY($2::uuid[])) AS known`,
      [merchantId, institutionIds],
    );
    const details: ErrorDetail[] = [];
    if (!merchant) details.push({ field: 'merchant_id', message: 'no such merchant' });
    if (known !== institutionIds.length)
      details.push({ field: 'institution_ids', message: 'names an unknown institution' });
    if (details.length) throw ApiError.validation(details);
  }

  private async setTargets(
    m: EntityManager,
    offerId: string,
    institutionIds: string[],
  ): Promise<void> {
    await m.query(`DELETE FROM offer_target WHERE offer_id = $1`, [offerId]);
    if (institutionIds.length) {
      await m.query(
        `INSERT INTO offer_target (offer_id, institution_id) SELECT $1, unnest($2::uuid[])`,
        [offerId, institutionIds],
      );
    }
  }
}

function toDto(r: OfferRow): AdminOfferDto {
  const c = r.currency;
  return {
    id: r.id,
    merchant_id: r.merchant_id,
    institution_ids: r.institution_ids,
    status: r.status,
    translations: r.translations,
    min_spend: toMajor(r.min_spend, c),
    reward_type: r.reward_type,
    cashback_amount: toMajor(r.cashback_amount, c),
    cashback_percent: r.cashback_percent === null ? null : Number(r.cashback_percent),
    merchant_fee_amount: toMajor(r.merchant_fee_amount, c),
    currency: c,
    starts_at: r.starts_at.toISOString(),
    expires_at: r.expires_at.toISOString(),
    budget_total: r.budget_total === null ? null : toMajor(r.budget_total, c),
    budget_used: toMajor(r.budget_used, c),
    segments: r.segments,
    max_redemptions_per_cardholder: r.max_redemptions_per_cardholder,
    priority: r.priority,
    qualification: qualificationTerms(r.qualification, c),
    goal:
      r.goal_type === null || r.goal_target === null
        ? null
        : {
            type: r.goal_type,
            target:
              r.goal_type === 'cumulative_spend'
                ? toMajor(r.goal_target, c)
                : Number(r.goal_target),
          },
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** The admin object as stored: the same names, max_spend in minor units; empty rules dropped. */
function toStored(q: QualificationDto | null | undefined, currency: string): string | null {
  if (!q) return null;
  const stored: StoredQualification = {};
  if (q.max_spend !== undefined) stored.max_spend_minor = toMinor(q.max_spend, currency);
  if (q.days_of_week) stored.days_of_week = [...q.days_of_week].sort();
  if (q.time_of_day) stored.time_of_day = { from: q.time_of_day.from, to: q.time_of_day.to };
  if (q.networks) stored.networks = q.networks.map((n) => n.trim().toLowerCase());
  if (q.channels) stored.channels = [...q.channels].sort() as Channel[];
  if (q.activation_days !== undefined) stored.activation_days = q.activation_days;
  if (q.audience !== undefined && q.audience !== 'all') {
    stored.audience = q.audience as Audience;
    stored.lookback_days = q.lookback_days;
  }
  return Object.keys(stored).length ? JSON.stringify(stored) : null;
}

/** Rules between qualification fields: lookback_days goes with audience new or lapsed, and only then. */
function checkQualification(q: QualificationDto | null | undefined): void {
  if (!q) return;
  const targeted = q.audience === 'new' || q.audience === 'lapsed';
  if (targeted && q.lookback_days === undefined)
    throw ApiError.validation([
      { field: 'qualification.lookback_days', message: `is required with audience ${q.audience}` },
    ]);
  if (!targeted && q.lookback_days !== undefined)
    throw ApiError.validation([
      {
        field: 'qualification.lookback_days',
        message: 'applies only with audience new or lapsed',
      },
    ]);
}

/** The stored target: purchases, or minor units of the offer currency for cumulative_spend. */
function goalTarget(goal: GoalDto | null | undefined, currency: string): number | null {
  if (!goal) return null;
  return goal.type === 'cumulative_spend' ? toMinor(goal.target, currency) : goal.target;
}

/** A purchase count is a whole number of purchases; a spend target fits the currency's decimals. */
function checkGoal(goal: GoalDto | null | undefined, currency: string): void {
  if (!goal) return;
  if (goal.type === 'purchase_count' && (!Number.isInteger(goal.target) || goal.target > 1000))
    throw ApiError.validation([
      { field: 'goal.target', message: 'must be a whole number of purchases from 1 to 1000' },
    ]);
  if (goal.type === 'cumulative_spend' && !fitsCurrency(goal.target, currency))
    throw ApiError.validation([
      { field: 'goal.target', message: `has more decimal places than ${currency} allows` },
    ]);
}
