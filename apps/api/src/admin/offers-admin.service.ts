import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import { AuditContext, AuditTrail, SimulationService } from '@app/core';
import {
  approvalRefusal,
  Audience,
  AuditActor,
  Channel,
  fitsCurrency,
  fromStoredQualification,
  goalOf,
  holdoutBpsOf,
  holdoutPercentOf,
  OfferTerms,
  parseTransactionEvent,
  qualificationTerms,
  splitOfferChange,
  StoredQualification,
  toMajor,
  toMinor,
  versionChanges,
} from '@app/domain';
import { ApiError, ErrorDetail } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import { QualificationDto } from '../common/qualification.dto';
import {
  AdminOfferDto,
  CreateOfferDto,
  GoalDto,
  OfferSimulationDto,
  OfferVersionDto,
  PendingVersionDto,
  UpdateOfferDto,
} from './offers.dto';
import { OfferChanges, OfferRow, OffersRepository } from './offers.repository';
import {
  OfferVersionRow,
  OfferVersionsRepository,
  VersionTerms,
} from './offer-versions.repository';

const MONEY_FIELDS = [
  'min_spend',
  'cashback_amount',
  'merchant_fee_amount',
  'budget_total',
] as const;

/** An offer that pays (or did): its terms change only through a version once approval applies. */
const LIVE_STATUSES = ['active', 'paused', 'ended'];

/** A change's answer: the offer (200), or the live offer and the version waiting for approval (202). */
export type OfferUpdateOutcome =
  | { status: 200; body: AdminOfferDto }
  | { status: 202; body: { offer: AdminOfferDto; pending_version: PendingVersionDto } };

/**
 * Operators' offer catalogue: rewards, windows, budgets, segments and targeting, and their
 * versions with maker–checker (docs/offers.md, Versions and approval; rules in
 * libs/domain/src/offer-versions.ts).
 */
@Injectable()
export class OffersAdminService {
  private readonly keyset: Keyset;

  constructor(
    private readonly db: DataSource,
    private readonly repo: OffersRepository,
    private readonly versions: OfferVersionsRepository,
    private readonly audit: AuditTrail,
    private readonly simulation: SimulationService,
    private readonly config: AppConfig,
  ) {
    this.keyset = new Keyset(config.keys, 'admin:offers');
  }

  /**
   * Whether this caller's offers wait for an approver: approval required and a named operator
   * (the break-glass token is exempt; the demo seed, actor `system`, too).
   */
  private gated(ctx: AuditContext): boolean {
    return this.config.offerApproval === 'required' && ctx.actor.type === 'operator';
  }

  async create(dto: CreateOfferDto, ctx: AuditContext): Promise<AdminOfferDto> {
    const rewardType = dto.reward_type ?? 'fixed';
    this.check({ ...dto, reward_type: rewardType }, dto.currency);
    checkQualification(dto.qualification);
    checkGoal(dto.goal, dto.currency);
    const holdoutBps = parseHoldout(dto.holdout_percent) ?? 0;
    if (this.gated(ctx) && dto.status !== 'draft')
      throw ApiError.conflict(
        'approval_required',
        'Offers start as drafts: create it with status draft, submit it, and have an approver approve it.',
      );
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
      await this.syncVersions(m, (await this.repo.find(offerId, m))!, ctx.actor);
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
   * A change. Applied at once (and recorded as `offer.pause`, `offer.end` or `offer.activate`
   * when it is the status alone, else `offer.update`) unless approval applies to the caller: then
   * a draft changes as before but cannot be activated (409 approval_required), and on a live
   * offer the texts, priority and status change at once while money edits go to the pending
   * version (202).
   */
  async update(id: string, dto: UpdateOfferDto, ctx: AuditContext): Promise<OfferUpdateOutcome> {
    return this.db.transaction(async (m) => {
      const cur = await this.repo.findForUpdate(id, m);
      if (!cur) throw ApiError.notFound('offer_not_found', 'No such offer.');
      if (!this.gated(ctx)) return { status: 200, body: toDto(await this.apply(m, cur, dto, ctx)) };
      const live = LIVE_STATUSES.includes(cur.status);
      if (!live) {
        if (dto.status !== undefined && dto.status !== 'draft')
          throw ApiError.conflict(
            'approval_required',
            'A draft goes live only through submit and an approver’s approve.',
          );
        return { status: 200, body: toDto(await this.apply(m, cur, dto, ctx)) };
      }
      if (dto.status === 'draft')
        throw ApiError.validation([
          { field: 'status', message: 'a live offer does not go back to draft; pause or end it' },
        ]);
      const { immediate, money } = splitOfferChange(dto as Record<string, unknown>);
      const after = Object.keys(immediate).length
        ? await this.apply(m, cur, immediate as UpdateOfferDto, ctx)
        : cur;
      const pending = Object.keys(money).length
        ? await this.propose(m, cur, money as UpdateOfferDto, ctx)
        : null;
      if (!pending) return { status: 200, body: toDto(after) };
      return {
        status: 202,
        body: {
          offer: toDto((await this.repo.find(id, m))!),
          pending_version: {
            id: pending.id,
            number: pending.number,
            status: pending.status,
            changed_by: pending.changed_by as PendingVersionDto['changed_by'],
          },
        },
      };
    });
  }

  /** The change applied to the row at once, recorded, and the versions kept in step. */
  private async apply(
    m: EntityManager,
    cur: OfferRow,
    dto: UpdateOfferDto,
    ctx: AuditContext,
  ): Promise<OfferRow> {
    const id = cur.id;
    const c = cur.currency;
    const base = termsOfRow(cur);
    const holdoutBps = await this.validateChange(m, cur, base, dto);
    const merged = {
      reward_type: dto.reward_type ?? base.reward_type,
      cashback_percent:
        dto.cashback_percent !== undefined ? dto.cashback_percent : base.cashback_percent,
    };
    await this.repo.update(
      id,
      {
        status: dto.status ?? null,
        translations: dto.translations ? JSON.stringify(dto.translations) : null,
        min_spend: dto.min_spend === undefined ? null : toMinor(dto.min_spend, c),
        reward_type: merged.reward_type,
        cashback_amount: dto.cashback_amount === undefined ? null : toMinor(dto.cashback_amount, c),
        cashback_percent: merged.reward_type === 'percent' ? merged.cashback_percent : null,
        merchant_fee_amount:
          dto.merchant_fee_amount === undefined ? null : toMinor(dto.merchant_fee_amount, c),
        starts_at: dto.starts_at ?? base.starts_at,
        expires_at: dto.expires_at ?? base.expires_at,
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
    const row = (await this.repo.find(id, m))!;
    await this.syncVersions(m, row, ctx.actor);
    const before = toDto(cur);
    const after = toDto((await this.repo.find(id, m))!);
    await this.audit.record(m, ctx, {
      action: offerAuditAction(dto, before.status, after.status),
      resourceType: 'offer',
      resourceId: id,
      before,
      after,
    });
    return row;
  }

  /**
   * Every rule a change must meet, against `base` (the terms it changes: the live row, or the
   * pending version): the fields together, the holdout and goal locks, the budget already used,
   * the institutions. Answers the holdout in basis points (null: unchanged).
   */
  private async validateChange(
    m: EntityManager,
    cur: OfferRow,
    base: VersionTerms,
    dto: UpdateOfferDto,
  ): Promise<number | null> {
    const c = cur.currency;
    this.check(
      {
        reward_type: dto.reward_type ?? base.reward_type,
        cashback_percent:
          dto.cashback_percent !== undefined
            ? dto.cashback_percent
            : (base.cashback_percent ?? undefined),
        starts_at: dto.starts_at ?? base.starts_at,
        expires_at: dto.expires_at ?? base.expires_at,
        min_spend: dto.min_spend,
        cashback_amount: dto.cashback_amount,
        merchant_fee_amount: dto.merchant_fee_amount,
        budget_total: dto.budget_total,
      },
      c,
    );
    checkQualification(dto.qualification);
    checkGoal(dto.goal, c);
    const holdoutBps = parseHoldout(dto.holdout_percent);
    if (holdoutBps !== null && holdoutBps !== cur.holdout_bps)
      await this.checkHoldoutChange(m, cur);
    if (dto.goal !== undefined && (dto.goal?.type ?? null) !== cur.goal_type)
      await this.checkGoalChange(m, cur.id);
    if (dto.budget_total != null && toMinor(dto.budget_total, c) < Number(cur.budget_used))
      throw budgetBelowUsed(cur);
    if (dto.institution_ids) await this.checkReferences(m, cur.merchant_id, dto.institution_ids);
    return holdoutBps;
  }

  /**
   * A money edit of a live offer by a named operator under approval: it goes to the open version
   * (made `in_review` when there is none), whose changes are counted from the live version. None
   * when it changes nothing the live offer does not already have.
   */
  private async propose(
    m: EntityManager,
    cur: OfferRow,
    dto: UpdateOfferDto,
    ctx: AuditContext,
  ): Promise<OfferVersionRow | null> {
    const { open } = await this.versions.current(cur.id, m);
    const base = open?.terms ?? termsOfRow(cur);
    const holdoutBps = await this.validateChange(m, cur, base, dto);
    const next = mergeTerms(base, dto, cur.currency, holdoutBps);
    const liveTerms = termsOfRow(cur);
    if (!open && sameTerms(next, liveTerms, cur.currency)) return null;
    const changes = versionChanges(
      termsView(liveTerms, cur.currency),
      termsView(next, cur.currency),
    );
    const version = open
      ? await this.versions.revise(m, open, next, changes, ctx.actor)
      : await this.versions.insert(m, {
          offerId: cur.id,
          status: 'in_review',
          terms: next,
          changes,
          actor: ctx.actor,
        });
    await this.audit.record(m, ctx, {
      action: 'offer.update',
      resourceType: 'offer',
      resourceId: cur.id,
      before: open ? versionView(open, cur.currency) : toDto(cur),
      after: versionView(version, cur.currency),
    });
    return version;
  }

  /**
   * After a change applied at once: a draft's open version holds the row's terms; a live row
   * whose terms differ from its live version makes a new approved version (effective now under
   * approval, else for every purchase, as edits always were), and a draft activated directly
   * (approval off, or the break-glass token) has its open version approved.
   */
  private async syncVersions(m: EntityManager, row: OfferRow, actor: AuditActor): Promise<void> {
    const { open, live } = await this.versions.current(row.id, m);
    const terms = termsOfRow(row);
    const c = row.currency;
    const changes = versionChanges(live ? termsView(live.terms, c) : null, termsView(terms, c));
    if (!LIVE_STATUSES.includes(row.status)) {
      if (!open) {
        await this.versions.insert(m, { offerId: row.id, status: 'draft', terms, changes, actor });
        return;
      }
      const revised = await this.versions.revise(m, open, terms, changes, actor);
      // A new offer's version follows it back to draft (PATCH status draft withdraws it).
      if (row.status === 'draft' && revised.status === 'in_review')
        await this.versions.setReview(m, revised, 'draft', null);
      return;
    }
    if (live && sameTerms(live.terms, terms, c)) return;
    const timed = this.config.offerApproval === 'required';
    const version =
      !live && open
        ? await this.versions.revise(m, open, terms, changes, actor)
        : await this.versions.insert(m, {
            offerId: row.id,
            status: 'in_review',
            terms,
            changes,
            actor,
          });
    await this.versions.approve(m, row.id, version.number, terms, actor, timed);
  }

  /** draft → in_review: the offer's first version, or a live offer's pending version sent back by a reject. */
  async submit(id: string, ctx: AuditContext): Promise<AdminOfferDto> {
    return this.db.transaction(async (m) => {
      const cur = await this.repo.findForUpdate(id, m);
      if (!cur) throw ApiError.notFound('offer_not_found', 'No such offer.');
      const { open } = await this.versions.current(id, m);
      if (open?.status !== 'draft')
        throw ApiError.conflict(
          'nothing_to_submit',
          open ? 'The offer is already in review.' : 'The offer has no draft version to submit.',
        );
      await this.versions.setReview(m, open, 'in_review', null);
      if (cur.status === 'draft') await this.repo.setStatus(id, 'in_review', m);
      return this.recordReview(m, ctx, 'offer.submit', cur, open);
    });
  }

  /**
   * in_review → live: by an approver or admin who did not change the version (409
   * same_operator). A new offer becomes active (shown from its starts_at); a pending version's
   * terms replace the live ones and judge purchases made from now on.
   */
  async approve(id: string, ctx: AuditContext): Promise<AdminOfferDto> {
    return this.db.transaction(async (m) => {
      const cur = await this.repo.findForUpdate(id, m);
      if (!cur) throw ApiError.notFound('offer_not_found', 'No such offer.');
      const { open } = await this.versions.current(id, m);
      if (open?.status !== 'in_review') throw notInReview();
      const actor = ctx.actor;
      const refusal = approvalRefusal(
        actor.type === 'operator' ? { type: 'operator', id: actor.id! } : { type: 'break_glass' },
        open.editors,
      );
      if (refusal)
        throw ApiError.conflict(
          refusal,
          'You changed this version since its last approval: another approver must approve it.',
        );
      const t = open.terms;
      if (t.holdout_bps !== cur.holdout_bps) await this.checkHoldoutChange(m, cur);
      if (t.goal_type !== cur.goal_type) await this.checkGoalChange(m, id);
      if (t.budget_total !== null && t.budget_total < Number(cur.budget_used))
        throw budgetBelowUsed(cur);
      const first = !LIVE_STATUSES.includes(cur.status);
      await this.repo.update(id, rowChangesOf(t, first ? 'active' : null), m);
      await this.repo.setTargets(id, t.institution_ids, m);
      await this.versions.approve(m, id, open.number, t, actor, true);
      const after = toDto((await this.repo.find(id, m))!);
      await this.audit.record(m, ctx, {
        action: 'offer.approve',
        resourceType: 'offer',
        resourceId: id,
        before: { ...toDto(cur), version: versionView(open, cur.currency) },
        after,
      });
      return after;
    });
  }

  /** in_review → draft, with the approver's note; a new offer goes back to draft too. */
  async reject(id: string, note: string, ctx: AuditContext): Promise<AdminOfferDto> {
    return this.db.transaction(async (m) => {
      const cur = await this.repo.findForUpdate(id, m);
      if (!cur) throw ApiError.notFound('offer_not_found', 'No such offer.');
      const { open } = await this.versions.current(id, m);
      if (open?.status !== 'in_review') throw notInReview();
      await this.versions.setReview(m, open, 'draft', note);
      if (cur.status === 'in_review') await this.repo.setStatus(id, 'draft', m);
      return this.recordReview(m, ctx, 'offer.reject', cur, open);
    });
  }

  private async recordReview(
    m: EntityManager,
    ctx: AuditContext,
    action: string,
    cur: OfferRow,
    before: OfferVersionRow,
  ): Promise<AdminOfferDto> {
    const [version] = (await this.versions.list(cur.id, m)).filter(
      (v) => v.number === before.number,
    );
    const after = toDto((await this.repo.find(cur.id, m))!);
    await this.audit.record(m, ctx, {
      action,
      resourceType: 'offer',
      resourceId: cur.id,
      before: { ...toDto(cur), version: versionView(before, cur.currency) },
      after: { ...after, version: versionView(version, cur.currency) },
    });
    return after;
  }

  /** Every version, newest first, with what each changed from the one before it. */
  async listVersions(id: string): Promise<{ data: OfferVersionDto[] }> {
    const offer = await this.repo.find(id);
    if (!offer) throw ApiError.notFound('offer_not_found', 'No such offer.');
    const rows = await this.versions.list(id);
    return { data: rows.map((v) => versionView(v, offer.currency)) };
  }

  /**
   * A purchase judged against the offer's open version (draft or pending; else the live terms) as
   * if it were active and the cardholder enrolled in it: matching's own pipeline in report mode
   * (SimulationService, as the institutions' simulate), with these terms in place of the stored.
   */
  async simulate(
    id: string,
    institutionId: string,
    purchase: unknown,
  ): Promise<OfferSimulationDto> {
    const row = await this.repo.find(id);
    if (!row) throw ApiError.notFound('offer_not_found', 'No such offer.');
    if (!(await this.repo.references(row.merchant_id, [institutionId], this.db.manager)).known)
      throw ApiError.notFound('institution_not_found', 'No such institution.');
    const parsed = parseTransactionEvent(purchase, { institutionId });
    if (!parsed.ok)
      throw ApiError.validation(
        parsed.errors.map(({ field, message }) => ({ field: `purchase.${field}`, message })),
      );
    const { open } = await this.versions.current(id, this.db.manager);
    const terms = open?.terms ?? termsOfRow(row);
    const result = await this.simulation.simulate(institutionId, parsed.event, undefined, {
      offer: { ...matchingTermsOf(row, terms), status: 'active' },
    });
    const evaluation = result.evaluations.find((e) => e.offer_id === id) ?? null;
    return {
      version: open ? { id: open.id, number: open.number, status: open.status } : null,
      evaluation,
      ...result,
    };
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
    pending_version: r.pending_version as PendingVersionDto | null,
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

function budgetBelowUsed(cur: OfferRow): ApiError {
  return ApiError.validation([
    {
      field: 'budget_total',
      message: `must be at least the budget already used (${toMajor(cur.budget_used, cur.currency)})`,
    },
  ]);
}

function notInReview(): ApiError {
  return ApiError.conflict(
    'not_in_review',
    'The offer has no version waiting for approval: submit it first.',
  );
}

/** The row's versioned terms, as a version stores them. */
function termsOfRow(r: OfferRow): VersionTerms {
  return {
    min_spend: Number(r.min_spend),
    reward_type: r.reward_type,
    cashback_amount: Number(r.cashback_amount),
    cashback_percent: r.cashback_percent === null ? null : Number(r.cashback_percent),
    merchant_fee_amount: Number(r.merchant_fee_amount),
    starts_at: r.starts_at.toISOString(),
    expires_at: r.expires_at.toISOString(),
    budget_total: r.budget_total === null ? null : Number(r.budget_total),
    segments: r.segments,
    max_redemptions_per_cardholder: r.max_redemptions_per_cardholder,
    qualification: r.qualification,
    goal_type: r.goal_type,
    goal_target: r.goal_target === null ? null : Number(r.goal_target),
    holdout_bps: r.holdout_bps,
    institution_ids: r.institution_ids,
  };
}

/** `base` with the change's fields (already validated) applied. */
function mergeTerms(
  base: VersionTerms,
  dto: UpdateOfferDto,
  c: string,
  holdoutBps: number | null,
): VersionTerms {
  const rewardType = dto.reward_type ?? base.reward_type;
  const percent = dto.cashback_percent !== undefined ? dto.cashback_percent : base.cashback_percent;
  const goalSet = dto.goal !== undefined;
  return {
    min_spend: dto.min_spend === undefined ? base.min_spend : toMinor(dto.min_spend, c),
    reward_type: rewardType,
    cashback_amount:
      dto.cashback_amount === undefined ? base.cashback_amount : toMinor(dto.cashback_amount, c),
    cashback_percent: rewardType === 'percent' ? (percent ?? null) : null,
    merchant_fee_amount:
      dto.merchant_fee_amount === undefined
        ? base.merchant_fee_amount
        : toMinor(dto.merchant_fee_amount, c),
    starts_at: dto.starts_at ? new Date(dto.starts_at).toISOString() : base.starts_at,
    expires_at: dto.expires_at ? new Date(dto.expires_at).toISOString() : base.expires_at,
    budget_total:
      dto.budget_total === undefined
        ? base.budget_total
        : dto.budget_total === null
          ? null
          : toMinor(dto.budget_total, c),
    segments: dto.segments ?? base.segments,
    max_redemptions_per_cardholder:
      dto.max_redemptions_per_cardholder ?? base.max_redemptions_per_cardholder,
    qualification:
      dto.qualification === undefined
        ? base.qualification
        : (JSON.parse(toStored(dto.qualification, c) ?? 'null') as StoredQualification | null),
    goal_type: goalSet ? (dto.goal?.type ?? null) : base.goal_type,
    goal_target: goalSet ? goalTarget(dto.goal, c) : base.goal_target,
    holdout_bps: holdoutBps ?? base.holdout_bps,
    institution_ids: dto.institution_ids ? [...dto.institution_ids].sort() : base.institution_ids,
  };
}

function sameTerms(a: VersionTerms, b: VersionTerms, c: string): boolean {
  return versionChanges(termsView(a, c), termsView(b, c)).length === 0;
}

/** A version's terms in the API's words (major units), as the versions and their changes show them. */
function termsView(t: VersionTerms, c: string): Record<string, unknown> {
  return {
    reward_type: t.reward_type,
    cashback_amount: toMajor(t.cashback_amount, c),
    cashback_percent: t.cashback_percent,
    min_spend: toMajor(t.min_spend, c),
    merchant_fee_amount: toMajor(t.merchant_fee_amount, c),
    budget_total: t.budget_total === null ? null : toMajor(t.budget_total, c),
    max_redemptions_per_cardholder: t.max_redemptions_per_cardholder,
    starts_at: new Date(t.starts_at).toISOString(),
    expires_at: new Date(t.expires_at).toISOString(),
    segments: t.segments,
    institution_ids: [...t.institution_ids].sort(),
    qualification: qualificationTerms(t.qualification, c),
    goal:
      t.goal_type === null || t.goal_target === null
        ? null
        : {
            type: t.goal_type,
            target: t.goal_type === 'cumulative_spend' ? toMajor(t.goal_target, c) : t.goal_target,
          },
    holdout_percent: holdoutPercentOf(t.holdout_bps),
  };
}

function versionView(v: OfferVersionRow, c: string): OfferVersionDto {
  return {
    id: v.id,
    number: v.number,
    status: v.status,
    created_by: v.created_by,
    changed_by: v.changed_by,
    approved_by: v.approved_by,
    approved_at: v.approved_at?.toISOString() ?? null,
    effective_from: v.effective_from?.toISOString() ?? null,
    review_note: v.review_note,
    created_at: v.created_at.toISOString(),
    terms: termsView(v.terms, c),
    changes: v.changes,
  };
}

/** The row's columns a version's terms set (status: a new offer's activation, else unchanged). */
function rowChangesOf(t: VersionTerms, status: string | null): OfferChanges {
  return {
    status,
    translations: null,
    min_spend: t.min_spend,
    reward_type: t.reward_type,
    cashback_amount: t.cashback_amount,
    cashback_percent: t.cashback_percent,
    merchant_fee_amount: t.merchant_fee_amount,
    starts_at: t.starts_at,
    expires_at: t.expires_at,
    setBudgetTotal: true,
    budget_total: t.budget_total,
    segments: t.segments,
    max_redemptions_per_cardholder: t.max_redemptions_per_cardholder,
    priority: null,
    targeted: t.institution_ids.length > 0,
    setQualification: true,
    qualification: t.qualification ? JSON.stringify(t.qualification) : null,
    setGoal: true,
    goal_type: t.goal_type,
    goal_target: t.goal_target,
    holdout_bps: t.holdout_bps,
  };
}

/** The offer as matching reads it, with a version's terms (simulate's draft or pending version). */
function matchingTermsOf(r: OfferRow, t: VersionTerms): OfferTerms {
  const qualification = fromStoredQualification(t.qualification);
  const goal = goalOf(t.goal_type, t.goal_target);
  return {
    id: r.id,
    merchantId: r.merchant_id,
    status: r.status,
    currency: r.currency,
    minSpend: t.min_spend,
    rewardType: t.reward_type as OfferTerms['rewardType'],
    cashbackAmount: t.cashback_amount,
    cashbackPercent: t.cashback_percent === null ? null : String(t.cashback_percent),
    merchantFeeAmount: t.merchant_fee_amount,
    startsAt: new Date(t.starts_at),
    expiresAt: new Date(t.expires_at),
    budgetTotal: t.budget_total,
    budgetUsed: Number(r.budget_used),
    maxRedemptionsPerCardholder: t.max_redemptions_per_cardholder,
    priority: r.priority,
    ...(qualification ? { qualification } : {}),
    ...(goal ? { goal } : {}),
    ...(t.holdout_bps ? { holdoutBps: t.holdout_bps } : {}),
  };
}
