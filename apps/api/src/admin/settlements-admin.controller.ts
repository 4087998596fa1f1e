import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { AuditContext, SettlementService } from '@app/core';
import { ErrorResponseDto } from '../common/error-response.dto';
import { IsTimestamp } from '../common/validators';
import { Audit, OperatorAuth } from './operator.guard';

export class RunSettlementDto {
  @ApiPropertyOptional({
    example: '2026-12-31T00:00:00Z',
    description:
      'Settle entries whose hold has passed at this time (default now). A future time settles early.',
  })
  @IsOptional()
  @IsTimestamp()
  as_of?: string;
}

export class SettlementRunResultDto {
  @ApiProperty({ example: 42, description: 'Entries moved from pending to settled by this run' })
  settled: number;
}

@ApiTags('Admin')
@OperatorAuth('operations')
@Controller('admin/api/v1/settlements')
export class SettlementsAdminController {
  constructor(private readonly settlement: SettlementService) {}

  @Post('run')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminRunSettlement',
    summary: 'Settle pending entries whose hold has passed',
    description:
      'Moves every pending settlement entry (and its redemption) whose created_at + the program’s settlement_hold_days is at or before `as_of` ' +
      'to settled. The same run happens on a schedule in the worker (SETTLEMENT_SCHEDULE, hourly by default). Safe to repeat: a settled entry is never settled again.',
  })
  @ApiResponse({ status: 200, type: SettlementRunResultDto })
  @ApiBadRequestResponse({
    description: 'as_of is not an ISO 8601 timestamp (`validation_failed`)',
    type: ErrorResponseDto,
  })
  async run(
    @Body() dto: RunSettlementDto,
    @Audit() ctx: AuditContext,
  ): Promise<SettlementRunResultDto> {
    const { settled } = await this.settlement.run(
      dto.as_of ? new Date(dto.as_of) : new Date(),
      'operator',
      ctx,
    );
    return { settled };
  }
}
