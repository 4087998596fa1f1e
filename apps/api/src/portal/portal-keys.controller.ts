import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AppConfig } from '@app/config';
import { DAY_MS, effectiveScopes, Scope } from '@app/domain';
import { ApiKeysRepository, KeyRow } from '../auth/api-keys.repository';
import { ApiKeysService } from '../auth/api-keys.service';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Keyset, PageQuery } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import { PortalAuth, StaffArea } from './portal-session.guard';
import {
  PortalApiKeyDto,
  PortalApiKeyPageDto,
  PortalCreateApiKeyDto,
  PortalIssuedApiKeyDto,
} from './portal.dto';

/** Longest expiry a portal user may choose: rotation at least yearly (docs/portal.md), with a year's slack. */
const MAX_EXPIRY_MS = 2 * 366 * DAY_MS;
export const EXPIRING_SOON_DAYS = 14;

function toDto(r: KeyRow, now = Date.now()): PortalApiKeyDto {
  const exp = r.expires_at ? r.expires_at.getTime() : null;
  const state: PortalApiKeyDto['state'] = r.revoked_at
    ? 'revoked'
    : exp !== null && exp <= now
      ? 'expired'
      : exp !== null && exp - now <= EXPIRING_SOON_DAYS * DAY_MS
        ? 'expiring_soon'
        : 'active';
  return {
    id: r.id,
    name: r.name,
    prefix: r.hint,
    scopes: effectiveScopes(r.scopes),
    expires_at: r.expires_at?.toISOString() ?? null,
    revoked_at: r.revoked_at?.toISOString() ?? null,
    last_used_at: r.last_used_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    created_by: r.created_by,
    state,
    days_to_expiry:
      exp === null
        ? null
        : exp > now
          ? Math.ceil((exp - now) / DAY_MS)
          : -Math.floor((now - exp) / DAY_MS),
  };
}

/** API keys in the portal: everyone reads; only admins create and revoke (docs/portal.md). */
@ApiTags('Portal')
@StaffArea('keys')
@Controller('portal/api/api-keys')
export class PortalKeysController {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly repo: ApiKeysRepository,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalListApiKeys',
    summary: 'API keys of the institution, newest first (revoked ones included)',
    description:
      'Masked keys with scopes, expiry and last use; the plaintext is shown only once, at creation.',
  })
  @ApiOkResponse({ type: PortalApiKeyPageDto })
  @ApiBadRequestResponse({
    description: 'Bad cursor or limit (`validation_failed`)',
    type: ErrorResponseDto,
  })
  async list(@Req() req: Request, @Query() q: PageQuery): Promise<PortalApiKeyPageDto> {
    const inst = req.portalUser!.institutionId;
    const keyset = new Keyset(this.config.keys, `portal:api-keys:${inst}`);
    const after = keyset.decode(q.cursor);
    const limit = q.limit ?? 100;
    const rows = await this.repo.listPage(inst, after, limit);
    const now = Date.now();
    return keyset.page(rows, limit, (r) => toDto(r, now));
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @PortalAuth('manage')
  @ApiOperation({
    operationId: 'portalCreateApiKey',
    summary: 'Create an API key (admins); the plaintext is in this response only',
    description:
      'Recorded in the security activity. `expires_at` defaults to one year from now. The `privacy` scope (erasure and export of cardholder data, docs/privacy.md) is never implied and only an admin may grant it (`403 forbidden` otherwise).',
  })
  @ApiCreatedResponse({ type: PortalIssuedApiKeyDto })
  @ApiBadRequestResponse({
    description:
      '`validation_failed` (no scope, unknown scope, expiry in the past or too far ahead)',
    type: ErrorResponseDto,
  })
  async create(
    @Req() req: Request,
    @Body() dto: PortalCreateApiKeyDto,
  ): Promise<PortalIssuedApiKeyDto> {
    let expiresAt: Date | undefined;
    if (dto.expires_at !== undefined) {
      expiresAt = new Date(dto.expires_at);
      const ms = expiresAt.getTime() - Date.now();
      if (ms <= 0)
        throw ApiError.validation([{ field: 'expires_at', message: 'must lie in the future' }]);
      if (ms > MAX_EXPIRY_MS)
        throw ApiError.validation([
          {
            field: 'expires_at',
            message: 'must be at most two years from now (rotate keys at least yearly)',
          },
        ]);
    }
    const p = req.portalUser!;
    const issued = await this.keys.issue(
      p.institutionId,
      {
        name: dto.name.trim() || dto.name,
        scopes: dto.scopes as Scope[],
        expiresAt,
        createdByUserId: p.userId,
        grantor: p.role,
      },
      { label: p.email, ip: req.ip },
    );
    const { id, key, name, prefix, scopes, expires_at, created_at } = issued;
    return { id, key, name, prefix, scopes, expires_at, created_at };
  }

  @Delete(':id')
  @PortalAuth('manage')
  @ApiOperation({
    operationId: 'portalRevokeApiKey',
    summary: 'Revoke an API key (admins); calls with it get 403 token_revoked from then on',
    description:
      'Idempotent: revoking a revoked key changes nothing. Recorded in the security activity.',
  })
  @ApiOkResponse({ type: PortalApiKeyDto })
  @ApiNotFoundResponse({
    description: "`api_key_not_found` (also for another institution's key)",
    type: ErrorResponseDto,
  })
  async revoke(@Req() req: Request, @Param('id', uuidPipe) id: string): Promise<PortalApiKeyDto> {
    const p = req.portalUser!;
    await this.keys.revoke(p.institutionId, id, { label: p.email, ip: req.ip });
    const row = await this.repo.findOne(p.institutionId, id);
    return toDto(row!);
  }
}
