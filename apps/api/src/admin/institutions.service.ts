import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { AppConfig } from '@app/config';
import { hashPassword } from '@app/core';
import {
  Institution,
  Locale,
  PG_UNIQUE_VIOLATION,
  pgErrorCode,
  Plan,
  PortalRole,
  PortalUser,
  Program,
  SortOrder,
} from '@app/db';
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

/** Onboarding of institutions, their program settings and their staff logins. */
@Injectable()
export class InstitutionsService {
  private readonly keyset: Keyset;

  constructor(
    private readonly db: DataSource,
    @InjectRepository(Institution) private readonly institutions: Repository<Institution>,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.secretsKey, 'admin:institutions');
  }

  async create(dto: CreateInstitutionDto): Promise<InstitutionDto> {
    const id = await this.db.transaction(async (m) => {
      const inst = await m
        .getRepository(Institution)
        .save(
          m
            .getRepository(Institution)
            .create({ name: dto.name, plan: dto.plan as Plan, rateLimits: { ...dto.rate_limits } }),
        );
      await m
        .getRepository(Program)
        .insert({ institutionId: inst.id, ...programColumns(dto.program ?? {}) });
      return inst.id;
    });
    return this.get(id);
  }

  async get(id: string): Promise<InstitutionDto> {
    const inst = await this.institutions.findOne({ where: { id }, relations: { program: true } });
    if (!inst) throw ApiError.notFound('institution_not_found', 'No such institution.');
    return toDto(inst);
  }

  async list(limit: number, cursor?: string): Promise<Page<InstitutionDto>> {
    const after = this.keyset.decode(cursor);
    const rows: (Institution & { cursor_t: string })[] = await this.institutions
      .createQueryBuilder('i')
      .leftJoinAndSelect('i.program', 'p')
      .addSelect(
        `to_char(i.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
        'cursor_t',
      )
      .where(after ? '(i.created_at, i.id) < (:t::timestamptz, :id::uuid)' : 'TRUE', after ?? {})
      .orderBy('i.created_at', 'DESC')
      .addOrderBy('i.id', 'DESC')
      .limit(limit + 1)
      .getRawAndEntities()
      .then(({ raw, entities }) =>
        entities.map((e, n) =>
          Object.assign(e, { cursor_t: (raw[n] as { cursor_t: string }).cursor_t }),
        ),
      );
    return this.keyset.page(rows, limit, toDto);
  }

  async update(id: string, dto: UpdateInstitutionDto): Promise<InstitutionDto> {
    await this.db.transaction(async (m) => {
      const inst = await m
        .getRepository(Institution)
        .findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!inst) throw ApiError.notFound('institution_not_found', 'No such institution.');
      if (dto.name !== undefined) inst.name = dto.name;
      if (dto.plan !== undefined) inst.plan = dto.plan as Plan;
      if (dto.status !== undefined) inst.status = dto.status as Institution['status'];
      if (dto.rate_limits !== undefined) inst.rateLimits = { ...dto.rate_limits };
      await m.getRepository(Institution).save(inst);
      if (dto.program) {
        const cols = programColumns(dto.program);
        if (Object.keys(cols).length)
          await m.getRepository(Program).update({ institutionId: id }, cols);
      }
    });
    return this.get(id);
  }

  async createUser(institutionId: string, dto: CreateUserDto): Promise<PortalUserDto> {
    await this.get(institutionId);
    const users = this.db.getRepository(PortalUser);
    try {
      const user = await users.save(
        users.create({
          institutionId,
          email: dto.email.trim(),
          passwordHash: await hashPassword(dto.password),
          role: dto.role as PortalRole,
        }),
      );
      return {
        id: user.id,
        institution_id: institutionId,
        email: user.email,
        role: user.role,
        created_at: user.createdAt.toISOString(),
      };
    } catch (e) {
      if (pgErrorCode(e) === PG_UNIQUE_VIOLATION)
        throw ApiError.conflict('email_taken', 'A portal user with this e-mail already exists.');
      throw e;
    }
  }
}

function programColumns(p: ProgramSettingsDto): Partial<Program> {
  const cols: Partial<Program> = {};
  if (p.supported_locales !== undefined) cols.supportedLocales = p.supported_locales as Locale[];
  if (p.sort_order !== undefined) cols.sortOrder = p.sort_order as SortOrder;
  if (p.max_active_offers !== undefined) cols.maxActiveOffers = p.max_active_offers;
  if (p.widget_feed_limit !== undefined) cols.widgetFeedLimit = p.widget_feed_limit;
  if (p.service_share_rate !== undefined) cols.serviceShareRate = p.service_share_rate;
  if (p.settlement_hold_days !== undefined) cols.settlementHoldDays = p.settlement_hold_days;
  return cols;
}

function toDto(i: Institution): InstitutionDto {
  const p = i.program!;
  return {
    id: i.id,
    name: i.name,
    plan: i.plan,
    status: i.status,
    program: {
      supported_locales: p.supportedLocales,
      sort_order: p.sortOrder,
      max_active_offers: p.maxActiveOffers,
      widget_feed_limit: p.widgetFeedLimit,
      service_share_rate: p.serviceShareRate,
      settlement_hold_days: p.settlementHoldDays,
    },
    rate_limits: i.rateLimits ?? {},
    webhook_url: i.webhookUrl,
    created_at: i.createdAt.toISOString(),
  };
}
