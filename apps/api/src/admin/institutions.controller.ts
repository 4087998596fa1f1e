import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import type { AuditContext } from '@app/core';
import { Scope } from '@app/domain';
import { ApiKeysService } from '../auth/api-keys.service';
import { ErrorResponseDto } from '../common/error-response.dto';
import { PageQuery } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import {
  CreateApiKeyDto,
  CreateInstitutionDto,
  CreateUserDto,
  InstitutionDto,
  IssuedApiKeyDto,
  PortalUserDto,
  UpdateInstitutionDto,
} from './institutions.dto';
import { InstitutionsService } from './institutions.service';
import { Audit, OperatorAuth, OperatorCan } from './operator.guard';
import { ApiPageResponse } from './admin-page.response';

@ApiTags('Admin')
@OperatorAuth()
@ApiBadRequestResponse({
  description: 'Invalid input (`validation_failed`, `invalid_json`)',
  type: ErrorResponseDto,
})
@Controller('admin/api/v1/institutions')
export class InstitutionsController {
  constructor(
    private readonly institutions: InstitutionsService,
    private readonly keys: ApiKeysService,
  ) {}

  @Post()
  @OperatorCan('institutions')
  @ApiOperation({
    operationId: 'adminCreateInstitution',
    summary: 'Onboard an institution with its program settings',
    description:
      'Creates the institution and its program (locales, sort order, active-offer limit). Next: issue an API key and create a portal login for its staff.',
  })
  @ApiCreatedResponse({ type: InstitutionDto })
  create(@Body() dto: CreateInstitutionDto, @Audit() ctx: AuditContext): Promise<InstitutionDto> {
    return this.institutions.create(dto, ctx);
  }

  @Get()
  @ApiOperation({
    operationId: 'adminListInstitutions',
    summary: 'List institutions, newest first (keyset paged)',
    description:
      'Every institution with its plan, status and program settings. Pass `next_cursor` from a page as `cursor` to read the next one.',
  })
  @ApiPageResponse(InstitutionDto)
  list(@Query() q: PageQuery) {
    return this.institutions.list(q.limit ?? 100, q.cursor);
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'adminGetInstitution',
    summary: 'Get one institution',
    description:
      'The institution with its program settings and rate-limit overrides; 404 `institution_not_found` when unknown.',
  })
  @ApiOkResponse({ type: InstitutionDto })
  @ApiNotFoundResponse({ description: '`institution_not_found`', type: ErrorResponseDto })
  get(@Param('id', uuidPipe) id: string): Promise<InstitutionDto> {
    return this.institutions.get(id);
  }

  @Patch(':id')
  @OperatorCan('institutions')
  @ApiOperation({
    operationId: 'adminUpdateInstitution',
    summary: 'Change name, plan, status, program settings or rate-limit overrides',
    description:
      'Only the fields sent change. Suspending an institution makes its API keys answer 403 `institution_suspended` at once, ends its portal sessions and refuses its portal sign-ins.',
  })
  @ApiOkResponse({ type: InstitutionDto })
  @ApiNotFoundResponse({ description: '`institution_not_found`', type: ErrorResponseDto })
  update(
    @Param('id', uuidPipe) id: string,
    @Body() dto: UpdateInstitutionDto,
    @Audit() ctx: AuditContext,
  ): Promise<InstitutionDto> {
    return this.institutions.update(id, dto, ctx);
  }

  @Post(':id/users')
  @OperatorCan('institutions')
  @ApiOperation({
    operationId: 'adminCreatePortalUser',
    summary: "Create a portal login for the institution's staff",
    description:
      "Creates an admin or member login for the institution's portal. 409 `email_taken` when the e-mail already has a login.",
  })
  @ApiCreatedResponse({ type: PortalUserDto })
  @ApiConflictResponse({ description: '`email_taken`', type: ErrorResponseDto })
  @ApiNotFoundResponse({ description: '`institution_not_found`', type: ErrorResponseDto })
  createUser(
    @Param('id', uuidPipe) id: string,
    @Body() dto: CreateUserDto,
    @Audit() ctx: AuditContext,
  ): Promise<PortalUserDto> {
    return this.institutions.createUser(id, dto, ctx);
  }

  @Post(':id/api-keys')
  @OperatorCan('institutions')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'adminCreateApiKey',
    summary: 'Issue a bootstrap API key (plaintext returned once)',
    description:
      'Issues a key with the given scopes for the institution to start with; the plaintext `plo_live_…` value is returned once and never again (only its hash is stored). Institutions issue further keys in the portal.',
  })
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  @ApiNotFoundResponse({ description: '`institution_not_found`', type: ErrorResponseDto })
  async createKey(
    @Param('id', uuidPipe) id: string,
    @Body() dto: CreateApiKeyDto,
    @Req() req: Request,
    @Audit() ctx: AuditContext,
  ): Promise<IssuedApiKeyDto> {
    await this.institutions.get(id);
    return this.keys.issue(
      id,
      {
        name: dto.name,
        scopes: dto.scopes === null ? null : (dto.scopes as Scope[] | undefined),
        expiresAt:
          dto.expires_at === null ? null : dto.expires_at ? new Date(dto.expires_at) : undefined,
        grantor: 'operator',
      },
      { label: 'operator', ip: req.ip },
      ctx,
    );
  }
}
