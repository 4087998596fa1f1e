import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { IsTimestamp } from '../common/validators';
import { OperatorAuth } from './operator.guard';

export class RunSettlementDto {
  @ApiPropertyOptional({ example: '2026-12-31T00:00:00Z', description: 'Settle entries whose hold has passed at this time (default now)' })
  @IsOptional()
  @IsTimestamp()
  as_of?: string;
}

export class SettlementRunResultDto {
  @ApiProperty({ example: 42 }) settled: number;
}

@ApiTags('Admin')
@OperatorAuth()
@Controller('admin/api/v1/settlements')
export class SettlementsAdminController {
  @Post('run')
  @HttpCode(200)
  @ApiOperation({ operationId: 'adminRunSettlement', summary: 'Settle pending entries whose hold has passed' })
  @ApiResponse({ status: 200, type: SettlementRunResultDto })
  @ApiResponse({ status: 501, description: 'Settlement is not available yet (`not_implemented`)', type: ErrorResponseDto })
  run(@Body() _dto: RunSettlementDto): SettlementRunResultDto {
    throw new ApiError(501, 'not_implemented', 'Settlement runs arrive with transaction matching.');
  }
}
