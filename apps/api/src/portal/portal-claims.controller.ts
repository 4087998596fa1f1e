import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ClaimsApiService } from '../claims/claims-api.service';
import { ClaimDto, ClaimPageDto, ClaimsQuery, FileClaimDto } from '../claims/claims.dto';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Page } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import { PortalAuth, StaffArea } from './portal-session.guard';

/**
 * The portal's claims: the same ClaimsApiService as /api/v1/claims, for the session's
 * institution, so the staff's support desk and the bank's API answer alike. Area `claims`: the
 * support role files (`act`) and reads them, as admins and members do.
 */
@ApiTags('Portal')
@StaffArea('claims')
@ApiBadRequestResponse({
  description:
    'A field or the purchase evidence is invalid (`validation_failed`, `pii_rejected`), or a bad cursor',
  type: ErrorResponseDto,
})
@Controller('portal/api/claims')
export class PortalClaimsController {
  constructor(private readonly claims: ClaimsApiService) {}

  @Get()
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalListClaims',
    summary: "The institution's claims, newest first",
  })
  @ApiOkResponse({ type: ClaimPageDto })
  list(@Req() req: Request, @Query() q: ClaimsQuery): Promise<Page<ClaimDto>> {
    return this.claims.list(req.portalUser!.institutionId, q);
  }

  @Get(':id')
  @PortalAuth()
  @ApiOperation({ operationId: 'portalGetClaim', summary: 'One claim' })
  @ApiOkResponse({ type: ClaimDto })
  @ApiNotFoundResponse({
    description: "No such claim, or another institution's (`claim_not_found`)",
    type: ErrorResponseDto,
  })
  get(@Req() req: Request, @Param('id', uuidPipe) id: string): Promise<ClaimDto> {
    return this.claims.get(req.portalUser!.institutionId, id);
  }

  @Post()
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalFileClaim',
    summary: 'File a claim for a cardholder (as POST /api/v1/claims)',
  })
  @ApiCreatedResponse({ type: ClaimDto, description: 'A new claim' })
  @ApiOkResponse({ type: ClaimDto, description: 'Claimed before: that claim' })
  @ApiNotFoundResponse({
    description: 'Unknown offer, or not offered to the institution (`offer_not_found`)',
    type: ErrorResponseDto,
  })
  @ApiUnprocessableEntityResponse({
    description: 'Not stored and no purchase evidence (`transaction_not_found`)',
    type: ErrorResponseDto,
  })
  async file(
    @Req() req: Request,
    @Body() dto: FileClaimDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ClaimDto> {
    const r = await this.claims.file(req.portalUser!.institutionId, dto);
    res.status(r.created ? 201 : 200);
    return r.claim;
  }
}
