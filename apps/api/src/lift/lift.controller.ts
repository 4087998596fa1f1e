import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { OperatorAuth } from '../admin/operator.guard';
import { ApiKeyPrincipal } from '../auth/auth.types';
import { CurrentKey } from '../auth/current-key.decorator';
import { ApiKeyAuth } from '../auth/scopes.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import { AdminLiftQuery, LiftReportDto } from './lift.dto';
import { LiftService } from './lift.service';

const DESCRIPTION =
  'Holdout against exposed cardholders of the offer: purchase rates, spend, the lift, 95% intervals, incremental spend and return on the merchant-funded rewards, with the pre-period check. Computed in PostgreSQL; a result may be reused for up to 60 s (`as_of` says when it was computed). Method: docs/lift.md.';

@ApiTags('Reporting')
@ApiKeyAuth('reporting')
@Controller('api/v1/reporting/offers')
export class LiftReportingController {
  constructor(private readonly lift: LiftService) {}

  @Get(':id/lift')
  @ApiOperation({
    operationId: 'getOfferLift',
    summary: "An offer's measured lift among the institution's cardholders",
    description: DESCRIPTION,
  })
  @ApiOkResponse({ type: LiftReportDto })
  @ApiBadRequestResponse({
    description: 'Offer id not a UUID (`validation_failed`)',
    type: ErrorResponseDto,
  })
  @ApiNotFoundResponse({
    description: '`offer_not_found` (also for an offer not offered to the institution)',
    type: ErrorResponseDto,
  })
  get(
    @CurrentKey() key: ApiKeyPrincipal,
    @Param('id', uuidPipe) id: string,
  ): Promise<LiftReportDto> {
    return this.lift.report(id, key.institutionId);
  }
}

@ApiTags('Admin')
@OperatorAuth()
@Controller('admin/api/v1/offers')
export class LiftAdminController {
  constructor(private readonly lift: LiftService) {}

  @Get(':id/lift')
  @ApiOperation({
    operationId: 'adminGetOfferLift',
    summary: "An offer's measured lift, for one institution or all",
    description: `${DESCRIPTION} Without \`institution_id\`, every institution the offer is offered to: cardholders are (institution, token) pairs and the figures sum.`,
  })
  @ApiOkResponse({ type: LiftReportDto })
  @ApiBadRequestResponse({
    description: 'Bad offer or institution id (`validation_failed`)',
    type: ErrorResponseDto,
  })
  @ApiNotFoundResponse({
    description: '`offer_not_found` (also for an institution the offer is not offered to)',
    type: ErrorResponseDto,
  })
  get(@Param('id', uuidPipe) id: string, @Query() q: AdminLiftQuery): Promise<LiftReportDto> {
    return this.lift.report(id, q.institution_id ?? null);
  }
}
