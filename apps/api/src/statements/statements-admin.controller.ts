import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { AuditContext } from '@app/core';
import { Audit, OperatorAuth, OperatorCan } from '../admin/operator.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import {
  CloseStatementsDto,
  CloseStatementsResultDto,
  MerchantStatementListDto,
  MerchantStatementsQuery,
} from './statements.dto';
import { StatementsService } from './statements.service';

@ApiTags('Admin')
@OperatorAuth()
@Controller('admin/api/v1')
export class StatementsAdminController {
  constructor(private readonly statements: StatementsService) {}

  @Post('statements/close')
  @OperatorCan('operations')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminCloseStatements',
    summary: 'Close statements early, up to a day',
    description:
      "Closes every open day up to and including `through`, read in each institution's time zone, and every month whose last day that closes, for one institution or all. " +
      'The worker closes each day shortly after it ends; this closes earlier. Running it twice answers `closed: 0`.',
  })
  @ApiOkResponse({ type: CloseStatementsResultDto })
  @ApiBadRequestResponse({
    description:
      "`through` is not a date, or is after an institution's current day (`validation_failed`)",
    type: ErrorResponseDto,
  })
  close(
    @Body() dto: CloseStatementsDto,
    @Audit() ctx: AuditContext,
  ): Promise<CloseStatementsResultDto> {
    return this.statements.close(dto.through, dto.institution_id, ctx);
  }

  @Get('merchants/:id/statements')
  @ApiOperation({
    operationId: 'adminMerchantStatements',
    summary: 'What a merchant is invoiced, per UTC day or month and currency',
    description:
      'From the statement movements: rewards booked, less every reversal (pending or after settlement credits the full merchant-funded amount), ' +
      "split into the service's revenue and the institutions' payout. Newest period first.",
  })
  @ApiOkResponse({ type: MerchantStatementListDto })
  @ApiBadRequestResponse({
    description: 'Bad granularity or date (`validation_failed`)',
    type: ErrorResponseDto,
  })
  @ApiNotFoundResponse({
    description: 'No such merchant (`merchant_not_found`)',
    type: ErrorResponseDto,
  })
  merchant(
    @Param('id', uuidPipe) id: string,
    @Query() q: MerchantStatementsQuery,
  ): Promise<MerchantStatementListDto> {
    return this.statements.merchantStatements(id, q);
  }
}
