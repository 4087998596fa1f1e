import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { AuditContext, AuditTrail, hashPassword } from '@app/core';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '@app/db';
import type { Locale, Plan, PortalRole, RewardOn, SortOrder } from '@app/domain';
import { ApiKeyCache } from '../auth/api-key-cache.service';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import {
  CreateInstitutionDto,
  CreateUserDto,
  InstitutionDto,
  PortalUserDto,
  ProgramSettingsDto,
  UpdateInstitutionDto,
} from './institutions.dto';
import { InstitutionRow, InstitutionsRepository, ProgramColumns } from './institutions.repository';

/** Onboarding of institutions, their program settings and their staff logins. */
@Injectable()
export class InstitutionsService {
  private readonly keyset: Keyset;

  constructor(
    private readonly db: DataSource,
    private readonly repo: InstitutionsRepository,
    private readonly keyCache: ApiKeyCache,
    private readonly audit: AuditTrail,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.keys, 'admin:institutions');
  }

  async create(dto: CreateInstitutionDto, ctx: AuditContext): Promise<InstitutionDto> {
    return this.db.transaction(async (m) => {
      const id = await this.repo.create(
        m,
        { name: dto.name, plan: dto.plan as Plan, rateLimits: { ...dto.rate_limits } },
        programColumns(dto.program ?? {}),
      );
      const after = toDto((await this.repo.find(id, m))!);
      await this.audit.record(m, ctx, {
        action: 'institution.create',
        resourceType: 'institution',
        resourceId: id,
        institutionId: id,
        after,
      });
      return after;
    });
  }

  async get(id: string): Promise<InstitutionDto> {
    const row = await this.repo.find(id);
    if (!row) throw ApiError.notFound('institution_not_found', 'No such institution.');
    return toDto(row);
  }

  async list(limit: number, cursor?: string): Promise<Page<InstitutionDto>> {
    const rows = await this.repo.listPage(this.keyset.decode(cursor), limit);
    return this.keyset.page(rows, limit, toDto);
  }

  /**
   * A suspension (or a new plan, name or rate limit) is in force for API keys when this answers.
   * Recorded as `institution.suspend` or `institution.reactivate` when the status changes, else
   * `institution.update`.
   */
  async update(id: string, dto: UpdateInstitutionDto, ctx: AuditContext): Promise<InstitutionDto> {
    const after = await this.keyCache.change(`institution:${id}`, () =>
      this.db.transaction(async (m) => {
        const before = await this.repo.findForUpdate(m, id);
        if (!before) return null;
        await this.repo.update(
          m,
          id,
          {
            name: dto.name,
            plan: dto.plan as Plan | undefined,
            status: dto.status,
            rateLimits: dto.rate_limits === undefined ? undefined : { ...dto.rate_limits },
          },
          programColumns(dto.program ?? {}),
        );
        const changed = toDto((await this.repo.find(id, m))!);
        await this.audit.record(m, ctx, {
          action:
            changed.status === before.status
              ? 'institution.update'
              : changed.status === 'suspended'
                ? 'institution.suspend'
                : 'institution.reactivate',
          resourceType: 'institution',
          resourceId: id,
          institutionId: id,
          before: toDto(before),
          after: changed,
        });
        return changed;
      }),
    );
    if (!after) throw ApiError.notFound('institution_not_found', 'No such institution.');
    return after;
  }

  async createUser(
    institutionId: string,
    dto: CreateUserDto,
    ctx: AuditContext,
  ): Promise<PortalUserDto> {
    await this.get(institutionId);
    const passwordHash = await hashPassword(dto.password);
    try {
      return await this.db.transaction(async (m) => {
        const user = await this.repo.createUser(m, {
          institutionId,
          email: dto.email.trim(),
          passwordHash,
          role: dto.role as PortalRole,
        });
        const view: PortalUserDto = {
          id: user.id,
          institution_id: institutionId,
          email: user.email,
          role: user.role,
          created_at: user.created_at.toISOString(),
        };
        await this.audit.record(m, ctx, {
          action: 'portal_user.create',
          resourceType: 'portal_user',
          resourceId: user.id,
          institutionId,
          after: view,
        });
        return view;
      });
    } catch (e) {
      if (pgErrorCode(e) === PG_UNIQUE_VIOLATION)
        throw ApiError.conflict('email_taken', 'A portal user with this e-mail already exists.');
      throw e;
    }
  }
}

function programColumns(p: ProgramSettingsDto): ProgramColumns {
  return {
    supported_locales: p.supported_locales as Locale[] | undefined,
    sort_order: p.sort_order as SortOrder | undefined,
    max_active_offers: p.max_active_offers,
    widget_feed_limit: p.widget_feed_limit,
    service_share_rate: p.service_share_rate,
    settlement_hold_days: p.settlement_hold_days,
    time_zone: p.time_zone,
    reward_on: p.reward_on as RewardOn | undefined,
    authorization_expiry_days: p.authorization_expiry_days,
    claim_window_days: p.claim_window_days,
  };
}

function toDto(i: InstitutionRow): InstitutionDto {
  return {
    id: i.id,
    name: i.name,
    plan: i.plan,
    status: i.status,
    program: { ...i.program },
    rate_limits: i.rate_limits ?? {},
    webhook_url: i.webhook_url,
    created_at: i.created_at.toISOString(),
  };
}
