import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  AuditContext,
  AuditTrail,
  hashPassword,
  OperatorRow,
  OperatorsRepository,
  OperatorTokenRow,
} from '@app/core';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '@app/db';
import {
  mayManageTokensOf,
  OPERATOR_TOKEN_PREFIX,
  OperatorRole,
  OperatorStatus,
} from '@app/domain';
import type { OperatorPrincipal } from '../auth/operator-principal';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import {
  CreateOperatorDto,
  CreateOperatorTokenDto,
  IssuedOperatorTokenDto,
  OperatorDto,
  OperatorTokenDto,
  UpdateOperatorDto,
} from './operators.dto';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const notFound = () => ApiError.notFound('operator_not_found', 'No such operator.');

/** Named operators: accounts, roles, disabling, personal tokens; every change audited. */
@Injectable()
export class OperatorsService {
  private readonly keyset: Keyset;

  constructor(
    private readonly db: DataSource,
    private readonly repo: OperatorsRepository,
    private readonly audit: AuditTrail,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.keys, 'admin:operators');
  }

  async create(dto: CreateOperatorDto, ctx: AuditContext): Promise<OperatorDto> {
    const passwordHash = await hashPassword(dto.password);
    try {
      return await this.db.transaction(async (m) => {
        const row = await this.repo.insert(m, {
          email: dto.email.trim().toLowerCase(),
          name: dto.name,
          passwordHash,
          role: dto.role as OperatorRole,
        });
        const after = toDto(row);
        await this.audit.record(m, ctx, {
          action: 'operator.create',
          resourceType: 'operator',
          resourceId: row.id,
          after,
        });
        return after;
      });
    } catch (e) {
      if (pgErrorCode(e) === PG_UNIQUE_VIOLATION)
        throw ApiError.conflict('email_taken', 'An operator with this e-mail already exists.');
      throw e;
    }
  }

  async get(id: string): Promise<OperatorDto> {
    const row = await this.repo.find(id);
    if (!row) throw notFound();
    return toDto(row);
  }

  async list(limit: number, cursor?: string): Promise<Page<OperatorDto>> {
    const rows = await this.repo.listPage(this.keyset.decode(cursor), limit);
    return this.keyset.page(rows, limit, toDto);
  }

  /**
   * Name, role, status or password. Disabling ends the operator's sessions and revokes its
   * tokens in the same transaction as the status, so no request authenticates as it afterwards.
   */
  async update(id: string, dto: UpdateOperatorDto, ctx: AuditContext): Promise<OperatorDto> {
    const passwordHash = dto.password === undefined ? undefined : await hashPassword(dto.password);
    return this.db.transaction(async (m) => {
      const before = await this.repo.findForUpdate(m, id);
      if (!before) throw notFound();
      const row = await this.repo.update(m, id, {
        name: dto.name,
        role: dto.role as OperatorRole | undefined,
        status: dto.status as OperatorStatus | undefined,
        passwordHash,
      });
      const disabling = row.status === 'disabled' && before.status !== 'disabled';
      const revoked = disabling ? await this.repo.revokeCredentials(m, id) : null;
      const after = toDto(row);
      await this.audit.record(m, ctx, {
        action: disabling
          ? 'operator.disable'
          : row.status === 'active' && before.status === 'disabled'
            ? 'operator.enable'
            : row.role !== before.role
              ? 'operator.role_change'
              : 'operator.update',
        resourceType: 'operator',
        resourceId: id,
        before: toDto(before),
        after: {
          ...after,
          ...(passwordHash ? { password: 'changed' } : {}),
          ...(revoked
            ? { revoked_sessions: revoked.sessions, revoked_tokens: revoked.tokens }
            : {}),
        },
      });
      return after;
    });
  }

  /** An admin's reset of a lost second factor: password sign-in alone until it enrols again. */
  async resetSecondFactor(id: string, ctx: AuditContext): Promise<OperatorDto> {
    return this.db.transaction(async (m) => {
      const before = await this.repo.findForUpdate(m, id);
      if (!before) throw notFound();
      const after = toDto((await this.repo.resetSecondFactor(m, id))!);
      await this.audit.record(m, ctx, {
        action: 'operator.second_factor_reset',
        resourceType: 'operator',
        resourceId: id,
        before: toDto(before),
        after,
      });
      return after;
    });
  }

  /** A personal token: the plaintext answered once, only its SHA-256 stored. */
  async issueToken(
    caller: OperatorPrincipal,
    operatorId: string,
    dto: CreateOperatorTokenDto,
    ctx: AuditContext,
  ): Promise<IssuedOperatorTokenDto> {
    this.mayManage(caller, operatorId);
    const operator = await this.repo.find(operatorId);
    if (!operator) throw notFound();
    if (operator.status !== 'active')
      throw ApiError.conflict('operator_disabled', 'A disabled operator cannot get tokens.');
    const token = OPERATOR_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    return this.db.transaction(async (m) => {
      const row = await this.repo.insertToken(m, {
        operatorId,
        name: dto.name ?? 'personal token',
        tokenHash: createHash('sha256').update(token, 'utf8').digest('hex'),
        hint: `${OPERATOR_TOKEN_PREFIX}…${token.slice(-4)}`,
        expiresAt: dto.expires_at ? new Date(dto.expires_at) : null,
      });
      const view = tokenDto(row);
      await this.audit.record(m, ctx, {
        action: 'operator_token.create',
        resourceType: 'operator_token',
        resourceId: row.id,
        after: view,
      });
      return { ...view, token };
    });
  }

  async tokens(caller: OperatorPrincipal, operatorId: string): Promise<OperatorTokenDto[]> {
    this.mayManage(caller, operatorId);
    if (!(await this.repo.find(operatorId))) throw notFound();
    return (await this.repo.tokensOf(operatorId)).map(tokenDto);
  }

  async revokeToken(
    caller: OperatorPrincipal,
    operatorId: string,
    tokenId: string,
    ctx: AuditContext,
  ): Promise<OperatorTokenDto> {
    this.mayManage(caller, operatorId);
    return this.db.transaction(async (m) => {
      const row = await this.repo.revokeToken(m, operatorId, tokenId);
      if (!row) throw ApiError.notFound('token_not_found', 'No such token of this operator.');
      const after = tokenDto(row);
      await this.audit.record(m, ctx, {
        action: 'operator_token.revoke',
        resourceType: 'operator_token',
        resourceId: tokenId,
        after,
      });
      return after;
    });
  }

  /** Its own tokens for every operator; anyone's for an admin or the break-glass token. */
  private mayManage(caller: OperatorPrincipal, operatorId: string): void {
    if (caller.type === 'break_glass' || mayManageTokensOf(caller, operatorId)) return;
    throw ApiError.forbidden(
      'insufficient_role',
      `Your role (${caller.role}) may manage your own tokens only; another operator's need admin.`,
    );
  }
}

export function toDto(r: OperatorRow): OperatorDto {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    status: r.status,
    last_login_at: iso(r.last_login_at),
    disabled_at: iso(r.disabled_at),
    second_factor: r.totp_enabled_at !== null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

function tokenDto(r: OperatorTokenRow): OperatorTokenDto {
  return {
    id: r.id,
    operator_id: r.operator_id,
    name: r.name,
    prefix: r.hint,
    expires_at: iso(r.expires_at),
    revoked_at: iso(r.revoked_at),
    last_used_at: iso(r.last_used_at),
    created_at: r.created_at.toISOString(),
  };
}
