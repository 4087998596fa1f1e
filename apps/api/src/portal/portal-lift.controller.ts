import { Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { PageQuery } from '../common/pagination';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import {
  HoldoutKeyDto,
  HoldoutKeyStateDto,
  LiftReportDto,
  PortalOfferPageDto,
} from '../lift/lift.dto';
import { LiftService } from '../lift/lift.service';
import { PortalAuth, StaffArea } from './portal-session.guard';

/** The portal's read-only Offers page, each offer's Lift view, and the holdout key (docs/portal.md). */
@ApiTags('Portal')
@StaffArea('offers')
@Controller('portal/api')
export class PortalLiftController {
  constructor(private readonly lift: LiftService) {}

  @Get('offers')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalListOffers',
    summary: "The institution's live and past offers, newest first",
    description:
      'Offers that have started (drafts and offers not started yet are not listed). Keyset paged.',
  })
  @ApiOkResponse({ type: PortalOfferPageDto })
  offers(@Req() req: Request, @Query() q: PageQuery): Promise<PortalOfferPageDto> {
    return this.lift.offers(req.portalUser!.institutionId, q.cursor, q.limit ?? 100);
  }

  @Get('offers/:id/lift')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalGetOfferLift',
    summary: "An offer's lift among the institution's cardholders",
    description: 'The same report as GET /api/v1/reporting/offers/{id}/lift (docs/lift.md).',
  })
  @ApiOkResponse({ type: LiftReportDto })
  @ApiNotFoundResponse({ description: '`offer_not_found`', type: ErrorResponseDto })
  offerLift(@Req() req: Request, @Param('id', uuidPipe) id: string): Promise<LiftReportDto> {
    return this.lift.report(id, req.portalUser!.institutionId);
  }

  @Get('holdout-key')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalGetHoldoutKey',
    summary: 'Whether the holdout key has been revealed, when and by whom',
    description: 'Never the key itself.',
  })
  @ApiOkResponse({ type: HoldoutKeyStateDto })
  holdoutKeyState(@Req() req: Request): Promise<HoldoutKeyStateDto> {
    return this.lift.holdoutKeyState(req.portalUser!.institutionId);
  }

  @Post('holdout-key/reveal')
  @HttpCode(HttpStatus.OK)
  @PortalAuth('manage')
  @ApiOperation({
    operationId: 'portalRevealHoldoutKey',
    summary: "Reveal the institution's holdout key, once (admins)",
    description:
      'With the key the bank can reproduce every holdout assignment (docs/lift.md). It is shown in this answer only, once per institution; the reveal is recorded in the security activity.',
  })
  @ApiOkResponse({ type: HoldoutKeyDto })
  @ApiConflictResponse({
    description: '`holdout_key_revealed`: it was revealed before (see GET /portal/api/holdout-key)',
    type: ErrorResponseDto,
  })
  reveal(@Req() req: Request): Promise<HoldoutKeyDto> {
    const p = req.portalUser!;
    return this.lift.revealHoldoutKey(p.institutionId, { label: p.email, ip: req.ip ?? null });
  }
}
