import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyPrincipal } from '../auth/auth.types';
import { CurrentKey } from '../auth/current-key.decorator';
import { ApiKeyAuth } from '../auth/scopes.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import {
  FunnelDto,
  RedemptionPageDto,
  RedemptionsQuery,
  SettlementPageDto,
  SettlementsQuery,
  WindowQuery,
} from './reporting.dto';
import { ReportingService } from './reporting.service';

@ApiTags('Reporting')
@ApiKeyAuth('reporting')
@ApiBadRequestResponse({
  description: 'Bad query value or cursor (`validation_failed`)',
  type: ErrorResponseDto,
})
@Controller('api/v1/reporting')
export class ReportingController {
  constructor(private readonly reporting: ReportingService) {}

  @Get('redemptions')
  @ApiOperation({
    operationId: 'listRedemptions',
    summary: 'Redemptions, newest first',
    description:
      '`from` inclusive, `to` exclusive; keyset pages: pass `pagination.next_cursor` back as `cursor`. Cardholder tokens are masked.',
  })
  @ApiOkResponse({ type: RedemptionPageDto })
  redemptions(
    @CurrentKey() key: ApiKeyPrincipal,
    @Query() q: RedemptionsQuery,
  ): Promise<RedemptionPageDto> {
    return this.reporting.redemptions(key.institutionId, q, 'replica');
  }

  @Get('settlements')
  @ApiOperation({
    operationId: 'listSettlements',
    summary: 'Settlement ledger, newest first',
    description:
      'One entry per redemption: merchant-funded amount, the service revenue, the institution payout and the status.',
  })
  @ApiOkResponse({ type: SettlementPageDto })
  settlements(
    @CurrentKey() key: ApiKeyPrincipal,
    @Query() q: SettlementsQuery,
  ): Promise<SettlementPageDto> {
    return this.reporting.settlements(key.institutionId, q, 'replica');
  }

  @Get('funnel')
  @ApiOperation({
    operationId: 'getFunnel',
    summary: 'Engagement funnel for a window (default: the last 30 days)',
    description:
      "Feed calls, distinct cardholders, offer impressions, successful adds and redemptions of the key's institution in a window. `from` and `to` are ISO 8601 times; the window defaults to the last 30 days.",
  })
  @ApiOkResponse({ type: FunnelDto })
  funnel(@CurrentKey() key: ApiKeyPrincipal, @Query() q: WindowQuery): Promise<FunnelDto> {
    return this.reporting.funnel(key.institutionId, q.from, q.to, 'replica');
  }
}
