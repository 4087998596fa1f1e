import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import { AuditContext, AuditTrail } from '@app/core';
import {
  Audience,
  Channel,
  fitsCurrency,
  holdoutBpsOf,
  holdoutPercentOf,
  qualificationTerms,
  StoredQualification,
  toMajor,
  toMinor,
} from '@app/domain';
import { ApiError, ErrorDetail } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import { QualificationDto } from '../common/qualification.dto';
import { AdminOfferDto, CreateOfferDto, GoalDto, UpdateOfferDto } from './offers.dto';
import { OfferRow, OffersRepository } from './offers.repository';

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
    private readonly repo: OffersRepository,
    private readonly audit: AuditTrail,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.keys, 'admin:offers');
  }

  async create(dto: CreateOfferDto, ctx: AuditContext): Promise<AdminOfferDto> {
    const rewardType = dto.reward_type ?? 'fixed';
    this.check({ ...dto, reward_type: rewardType }, dto.currency);
    checkQualification(dto.qualification);
    checkGoal(dto.goal, dto.currency);
    const holdoutBps = parseHoldout(dto.holdout_percent) ?? 0;
    return this.db.transaction(async (m) => {
      await this.checkReferences(m, dto.merchant_id, dto.institution_ids);
      const offerId = await this.repo.insert(
        {
          merchant_id: dto.merchant_id,
          status: dto.status,
          translations: JSON.stringify(dto.translations),
          min_spend: toMinor(dto.min_spend, dto.currency),
          reward_type: rewardType,
          cashback_amount: toMinor(dto.cashback_amount, dto.currency),
          cashback_percent: dto.cashback_percent ?? null,
          merchant_fee_amount: toMinor(dto.merchant_fee_amount ?? 0, dto.currency),
          currency: dto.currency,
          starts_at: dto.starts_at,
          expires_at: dto.expires_at,
          budget_total: dto.budget_total == null ? null : toMinor(dto.budget_total, dto.currency),
          segments: dto.segments ?? [],
          max_redemptions_per_cardholder: dto.max_redemptions_per_cardholder ?? 1,
          priority: dto.priority ?? 0,
          targeted: (dto.institution_ids?.length ?? 0) > 0,
          qualification: toStored(dto.qualification, dto.currency),
          goal_type: dto.goal?.type ?? null,
          goal_target: goalTarget(dto.goal, dto.currency),
          holdout_bps: holdoutBps,
        },
        m,
      );
      await this.repo.setTargets(offerId, dto.institution_ids ?? [], m);
      const after = toDto((await this.repo.find(offerId, m))!);
      await this.audit.record(m, ctx, {
        action: 'offer.create',
        resourceType: 'offer',
        resourceId: offerId,
        after,
      });
      return after;
    });
  }

  /**
   * Recorded as `offer.pause`, `offer.end` or `offer.activate` when the change is the status
   * alone, else `offer.update`.
   */
  async update(id: string, dto: UpdateOfferDto, ctx: AuditContext): Promise<AdminOfferDto> {
    return this.db.transaction(async (m) => {
      const cur = await this.repo.findForUpdate(id, m);
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
      const holdoutBps = parseHoldout(dto.holdout_percent);
      if (holdoutBps !== null && holdoutBps !== cur.holdout_bps)
        await this.checkHoldoutChange(m, cur);
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
      await this.repo.update(
        id,
        {
          status: dto.status ?? null,
          translations: dto.translations ? JSON.stringify(dto.translations) : null,
          min_spend: dto.min_spend === undefined ? null : toMinor(dto.min_spend, c),
          reward_type: merged.reward_type,
          cashback_amount:
            dto.cashback_amount === undefined ? null : toMinor(dto.cashback_amount, c),
          cashback_percent: merged.reward_type === 'percent' ? merged.cashback_percent : null,
          merchant_fee_amount:
            dto.merchant_fee_amount === undefined ? null : toMinor(dto.merchant_fee_amount, c),
          starts_at: merged.starts_at,
          expires_at: merged.expires_at,
          setBudgetTotal: dto.budget_total !== undefined,
          budget_total: dto.budget_total == null ? null : toMinor(dto.budget_total, c),
          segments: dto.segments ?? null,
          max_redemptions_per_cardholder: dto.max_redemptions_per_cardholder ?? null,
          priority: dto.priority ?? null,
          targeted: dto.institution_ids ? dto.institution_ids.length > 0 : null,
          setQualification: dto.qualification !== undefined,
          qualification: toStored(dto.qualification, c),
          setGoal: dto.goal !== undefined,
          goal_type: dto.goal?.type ?? null,
          goal_target: goalTarget(dto.goal, c),
          holdout_bps: holdoutBps,
        },
        m,
      );
      if (dto.institution_ids) await this.repo.setTargets(id, dto.institution_ids, m);
      const before = toDto(cur);
      const after = toDto((await this.repo.find(id, m))!);
      await this.audit.record(m, ctx, {
        action: offerAuditAction(dto, before.status, after.status),
        resourceType: 'offer',
        resourceId: id,
        before,
        after,
      });
      return after;
    });
  }

  async get(id: string): Promise<AdminOfferDto> {
    const row = await this.repo.find(id);
    if (!row) throw ApiError.notFound('offer_not_found', 'No such offer.');
    return toDto(row);
  }

  async list(
    limit: number,
    cursor?: string,
    filter: { status?: string; merchant_id?: string } = {},
  ): Promise<Page<AdminOfferDto>> {
    const rows = await this.repo.listPage(filter, this.keyset.decode(cursor), limit);
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
    if (await this.repo.anyEnrollment(offerId, m))
      throw ApiError.validation([
        {
          field: 'goal',
          message:
            'type cannot be set, changed or removed once cardholders have added the offer (the target can); create a new offer',
        },
      ]);
  }

  /**
   * The holdout is fixed once anyone added the offer or it has been active at or after starts_at:
   * changing it then would mix cardholders assigned under two shares and break the comparison.
   */
  private async checkHoldoutChange(m: EntityManager, cur: OfferRow): Promise<void> {
    if (cur.went_live || (await this.repo.anyEnrollment(cur.id, m)))
      throw ApiError.conflict(
        'holdout_locked',
        'holdout_percent cannot change once a cardholder added the offer or it has been live; create a new offer instead.',
      );
  }

  private async checkReferences(
    m: EntityManager,
    merchantId: string,
    institutionIds: string[] = [],
  ): Promise<void> {
    const { merchant, known } = await this.repo.references(merchantId, institutionIds, m);
    const details: ErrorDetail[] = [];
    if (!merchant) details.push({ field: 'merchant_id', message: 'no such merchant' });
    if (known !== institutionIds.length)
      details.push({ field: 'institution_ids', message: 'names an unknown institution' });
    if (details.length) throw ApiError.validation(details);
  }
}

/** The audit log's verb for an offer change: a status change alone is named after the status. */
function offerAuditAction(change: UpdateOfferDto, from: string, to: string): string {
  const fields = Object.keys(change).filter(
    (k) => (change as Record<string, unknown>)[k] !== undefined,
  );
  if (fields.length !== 1 || fields[0] !== 'status' || from === to) return 'offer.update';
  return (
    { active: 'offer.activate', paused: 'offer.pause', ended: 'offer.end' }[to] ?? 'offer.update'
  );
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
    holdout_percent: holdoutPercentOf(r.holdout_bps),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** holdout_percent in basis points (null when absent); 400 when out of range or too precise. */
function parseHoldout(percent: number | undefined): number | null {
  if (percent === undefined) return null;
  const bps = holdoutBpsOf(percent);
  if (bps === null)
    throw ApiError.validation([
      {
        field: 'holdout_percent',
        message: 'must be a number from 0 to 50 with at most one decimal',
      },
    ]);
  return bps;
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
