import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { AuditContext } from '@app/core';
import { Audit, OperatorAuth, OperatorCan } from '../admin/operator.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import { LegalHoldDto, LegalHoldListDto, PlaceLegalHoldDto, RetentionDto } from './retention.dto';
import { RetentionService } from './retention.service';

@ApiTags('Admin')
@OperatorAuth()
@ApiBadRequestResponse({
  description: 'Invalid input (`validation_failed`, `invalid_json`)',
  type: ErrorResponseDto,
})
@Controller('admin/api/v1')
export class RetentionController {
  constructor(private readonly retention: RetentionService) {}

  @Get('retention')
  @ApiOperation({
    operationId: 'adminRetention',
    summary: 'How long each data class is kept, its partitions and the next drop',
    description:
      'Per data class (transactions, engagement_events, webhook_attempts, webhook_deliveries): the retention setting, ' +
      'the monthly partitions stored (oldest first) and when the oldest leaves. A class not yet partitioned reports its setting only. ' +
      'Money records (redemptions, settlement entries, statements) are never dropped by retention.',
  })
  @ApiOkResponse({ type: RetentionDto })
  report(): Promise<RetentionDto> {
    return this.retention.report();
  }

  @Get('legal-holds')
  @ApiOperation({
    operationId: 'adminListLegalHolds',
    summary: 'Institutions under legal hold',
    description:
      'Retention keeps every partition that holds rows of these institutions, past its setting.',
  })
  @ApiOkResponse({ type: LegalHoldListDto })
  listHolds(): Promise<LegalHoldListDto> {
    return this.retention.listHolds();
  }

  @Put('institutions/:id/legal-hold')
  @OperatorCan('institutions')
  @ApiOperation({
    operationId: 'adminPlaceLegalHold',
    summary: 'Place an institution under legal hold',
    description:
      'From now on no retention drop removes a partition holding rows of the institution (the run logs the partition kept and why). ' +
      'Placing it again changes the reason only.',
  })
  @ApiOkResponse({ type: LegalHoldDto })
  @ApiNotFoundResponse({ description: '`institution_not_found`', type: ErrorResponseDto })
  placeHold(
    @Param('id', uuidPipe) id: string,
    @Body() dto: PlaceLegalHoldDto,
    @Audit() ctx: AuditContext,
  ): Promise<LegalHoldDto> {
    return this.retention.placeHold(id, dto.reason, ctx);
  }

  @Delete('institutions/:id/legal-hold')
  @OperatorCan('institutions')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'adminLiftLegalHold',
    summary: 'Lift an institution’s legal hold',
    description: 'The next hourly run drops the partitions the hold kept past retention.',
  })
  @ApiNoContentResponse({ description: 'Lifted' })
  @ApiNotFoundResponse({
    description: 'The institution is not under legal hold (`legal_hold_not_found`)',
    type: ErrorResponseDto,
  })
  liftHold(@Param('id', uuidPipe) id: string, @Audit() ctx: AuditContext): Promise<void> {
    return this.retention.liftHold(id, ctx);
  }
}
