import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { AuditContext } from '@app/core';
import { Audit, CurrentOperator, OperatorAuth, OperatorCan } from '../admin/operator.guard';
import { ApiPageResponse } from '../admin/admin-page.response';
import type { OperatorPrincipal } from '../auth/operator-principal';
import { ErrorResponseDto } from '../common/error-response.dto';
import { PageQuery } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import {
  CreateOperatorDto,
  CreateOperatorTokenDto,
  IssuedOperatorTokenDto,
  OperatorDto,
  OperatorTokenDto,
  OperatorTokenListDto,
  UpdateOperatorDto,
} from './operators.dto';
import { OperatorsService } from './operators.service';

const NOT_FOUND = { description: '`operator_not_found`', type: ErrorResponseDto };

@ApiTags('Admin')
@OperatorAuth()
@ApiBadRequestResponse({
  description: 'Invalid input (`validation_failed`, `invalid_json`)',
  type: ErrorResponseDto,
})
@Controller('admin/api/v1/operators')
export class OperatorsController {
  constructor(private readonly operators: OperatorsService) {}

  @Post()
  @OperatorCan('operators')
  @ApiOperation({
    operationId: 'adminCreateOperator',
    summary: 'Create a named operator with a role',
    description:
      'Roles: `admin` (everything, manages operators), `author` (merchants, offers), `approver` (approves, activates, pauses and ends offers), `support` (reads, webhook tests and replays, claim decisions). Every role reads. 409 `email_taken` when the e-mail already has an operator.',
  })
  @ApiCreatedResponse({ type: OperatorDto })
  @ApiConflictResponse({ description: '`email_taken`', type: ErrorResponseDto })
  create(@Body() dto: CreateOperatorDto, @Audit() ctx: AuditContext): Promise<OperatorDto> {
    return this.operators.create(dto, ctx);
  }

  @Get()
  @ApiOperation({
    operationId: 'adminListOperators',
    summary: 'List operators, newest first (keyset paged)',
    description: 'Every operator with its role and status (disabled ones too).',
  })
  @ApiPageResponse(OperatorDto)
  list(@Query() q: PageQuery) {
    return this.operators.list(q.limit ?? 100, q.cursor);
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'adminGetOperator',
    summary: 'Get one operator',
    description: 'The operator with its role and status; 404 `operator_not_found` when unknown.',
  })
  @ApiOkResponse({ type: OperatorDto })
  @ApiNotFoundResponse(NOT_FOUND)
  get(@Param('id', uuidPipe) id: string): Promise<OperatorDto> {
    return this.operators.get(id);
  }

  @Patch(':id')
  @OperatorCan('operators')
  @ApiOperation({
    operationId: 'adminUpdateOperator',
    summary: "Change an operator's name, role, password or status (disable)",
    description:
      'Only the fields sent change. `status: disabled` ends every console session and revokes every personal token of the operator in the same transaction: its next request is answered 401.',
  })
  @ApiOkResponse({ type: OperatorDto })
  @ApiNotFoundResponse(NOT_FOUND)
  update(
    @Param('id', uuidPipe) id: string,
    @Body() dto: UpdateOperatorDto,
    @Audit() ctx: AuditContext,
  ): Promise<OperatorDto> {
    return this.operators.update(id, dto, ctx);
  }

  @Post(':id/second-factor/reset')
  @HttpCode(200)
  @OperatorCan('operators')
  @ApiOperation({
    operationId: 'adminResetOperatorSecondFactor',
    summary: "Remove an operator's second factor (lost device and recovery codes)",
    description:
      'The operator signs in with the password alone until it enrols again (POST /admin/api/v1/auth/totp).',
  })
  @ApiOkResponse({ type: OperatorDto })
  @ApiNotFoundResponse(NOT_FOUND)
  resetSecondFactor(
    @Param('id', uuidPipe) id: string,
    @Audit() ctx: AuditContext,
  ): Promise<OperatorDto> {
    return this.operators.resetSecondFactor(id, ctx);
  }

  @Post(':id/tokens')
  @OperatorCan('own-tokens')
  @ApiOperation({
    operationId: 'adminCreateOperatorToken',
    summary: 'Create a personal API token for an operator (plaintext returned once)',
    description:
      "The token (`plo_op_…`) authenticates as the operator, with its role, as `Authorization: Bearer <token>`; it is answered this once and only its hash is stored. An operator creates its own; another operator's only an `admin` (or the break-glass token): otherwise 403 `insufficient_role`. 409 `operator_disabled` for a disabled operator.",
  })
  @ApiCreatedResponse({ type: IssuedOperatorTokenDto })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse({ description: '`operator_disabled`', type: ErrorResponseDto })
  issueToken(
    @Param('id', uuidPipe) id: string,
    @Body() dto: CreateOperatorTokenDto,
    @CurrentOperator() caller: OperatorPrincipal,
    @Audit() ctx: AuditContext,
  ): Promise<IssuedOperatorTokenDto> {
    return this.operators.issueToken(caller, id, dto, ctx);
  }

  @Get(':id/tokens')
  @OperatorCan('own-tokens')
  @ApiOperation({
    operationId: 'adminListOperatorTokens',
    summary: "An operator's personal tokens (never the tokens themselves)",
    description:
      "Names, prefixes, expiry, revocation and last use, newest first. One's own, or anyone's for an `admin`.",
  })
  @ApiOkResponse({ type: OperatorTokenListDto })
  @ApiNotFoundResponse(NOT_FOUND)
  async tokens(
    @Param('id', uuidPipe) id: string,
    @CurrentOperator() caller: OperatorPrincipal,
  ): Promise<OperatorTokenListDto> {
    return { data: await this.operators.tokens(caller, id) };
  }

  @Post(':id/tokens/:token_id/revoke')
  @HttpCode(200)
  @OperatorCan('own-tokens')
  @ApiOperation({
    operationId: 'adminRevokeOperatorToken',
    summary: 'Revoke a personal token',
    description:
      "The token stops working at once; revoking twice is harmless. One's own, or anyone's for an `admin`. 404 `token_not_found`.",
  })
  @ApiOkResponse({ type: OperatorTokenDto })
  @ApiNotFoundResponse({ description: '`token_not_found`', type: ErrorResponseDto })
  revokeToken(
    @Param('id', uuidPipe) id: string,
    @Param('token_id', uuidPipe) tokenId: string,
    @CurrentOperator() caller: OperatorPrincipal,
    @Audit() ctx: AuditContext,
  ): Promise<OperatorTokenDto> {
    return this.operators.revokeToken(caller, id, tokenId, ctx);
  }
}
