import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsUUID } from 'class-validator';
import { AppConfig } from '@app/config';
import { AuditContext, MatchFailureRow, MatchFailuresService } from '@app/core';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Keyset, PageQuery } from '../common/pagination';
import { Audit, OperatorAuth, OperatorCan } from './operator.guard';

const UUID = '3f1c2b7a-9d4e-4f5a-8b6c-7d8e9f0a1b2c';

export class MatchFailureListQuery extends PageQuery {
  @ApiPropertyOptional({ example: UUID, description: 'Only this institution’s transactions' })
  @IsOptional()
  @IsUUID()
  institution_id?: string;
}

export class MatchFailureDto {
  @ApiProperty({ example: UUID }) transaction_id: string;
  @ApiProperty({ example: UUID }) institution_id: string;
  @ApiProperty({ example: 'txn-2026-11-21-000123' }) transaction_ref: string;
  @ApiProperty({
    example: '22003 numeric field overflow',
    description: 'Why matching failed on this transaction alone (error code and message)',
  })
  reason: string;
  @ApiProperty({ example: '2026-11-21T10:05:00.000Z' }) failed_at: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) received_at: string;
}

export class MatchFailurePageDto {
  @ApiProperty({ type: [MatchFailureDto] }) data: MatchFailureDto[];
  @ApiProperty({ example: { limit: 100, next_cursor: null } })
  pagination: { limit: number; next_cursor: string | null };
}

export class RetryMatchFailuresDto {
  @ApiProperty({
    example: [UUID],
    description: 'Quarantined transactions to send back to matching (1 to 1,000)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsUUID('all', { each: true })
  transaction_ids: string[];
}

export class RetryMatchFailuresResultDto {
  @ApiProperty({ example: 1, description: 'How many were quarantined and are now queued again' })
  retried: number;
  @ApiProperty({ example: [UUID] }) transaction_ids: string[];
}

const toDto = (r: MatchFailureRow): MatchFailureDto => ({
  transaction_id: r.id,
  institution_id: r.institution_id,
  transaction_ref: r.transaction_ref,
  reason: r.match_error,
  failed_at: r.match_failed_at.toISOString(),
  received_at: r.received_at.toISOString(),
});

/** Poison transactions (status match_failed) for operators: the list and the retry after a fix. */
@ApiTags('Admin')
@OperatorAuth()
@Controller('admin/api/v1/match-failures')
export class MatchFailuresAdminController {
  private readonly keyset: Keyset;

  constructor(
    private readonly failures: MatchFailuresService,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.keys, 'admin:match-failures');
  }

  @Get()
  @ApiOperation({
    operationId: 'adminListMatchFailures',
    summary: 'Transactions matching failed on alone (match_failed), newest first (keyset paged)',
    description:
      'A matching job that fails every attempt is split in halves down to the single transaction; one that still fails is quarantined with status `match_failed` and its reason, and left out of every later matching pass and relay until retried here. The worker metric `matching_failed_transactions` counts them.',
  })
  @ApiOkResponse({ type: MatchFailurePageDto })
  async list(@Query() q: MatchFailureListQuery): Promise<MatchFailurePageDto> {
    const limit = q.limit ?? 100;
    const rows = await this.failures.list(this.keyset.decode(q.cursor), limit, q.institution_id);
    return this.keyset.page(rows, limit, toDto);
  }

  @Post('retry')
  @OperatorCan('operations')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminRetryMatchFailures',
    summary: 'Send quarantined transactions back to matching',
    description:
      'After the cause is fixed: each listed transaction still `match_failed` goes back to `received` (committed) and is queued for matching; if it fails alone again it is quarantined again with the new reason. Ids not quarantined are ignored. Safe to repeat.',
  })
  @ApiOkResponse({ type: RetryMatchFailuresResultDto })
  @ApiBadRequestResponse({
    description: '`validation_failed`: transaction_ids missing, empty, over 1,000 or not UUIDs',
    type: ErrorResponseDto,
  })
  async retry(
    @Body() dto: RetryMatchFailuresDto,
    @Audit() ctx: AuditContext,
  ): Promise<RetryMatchFailuresResultDto> {
    const ids = await this.failures.retry(dto.transaction_ids, ctx);
    return { retried: ids.length, transaction_ids: ids };
  }
}
