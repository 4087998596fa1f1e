import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
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
import { offerChangePermissions } from '@app/domain';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import { AdminOfferDto, CreateOfferDto, OfferListQuery, UpdateOfferDto } from './offers.dto';
import { OffersAdminService } from './offers-admin.service';
import { Audit, OperatorAuth, OperatorCan } from './operator.guard';
import { ApiPageResponse } from './admin-page.response';

@ApiTags('Admin')
@OperatorAuth()
@ApiBadRequestResponse({
  description: 'Invalid input (`validation_failed`)',
  type: ErrorResponseDto,
})
@Controller('admin/api/v1/offers')
export class OffersAdminController {
  constructor(private readonly offers: OffersAdminService) {}

  @Post()
  @OperatorCan('offers.author')
  @ApiOperation({
    operationId: 'adminCreateOffer',
    summary: 'Create an offer (fixed or percent reward, budget, segments, targeting)',
    description:
      'Creates an offer for a merchant: a fixed or percent reward (capped by `cashback_amount`), a minimum spend, a window, an optional budget, segments and the institutions it is offered to.',
  })
  @ApiCreatedResponse({ type: AdminOfferDto })
  create(@Body() dto: CreateOfferDto, @Audit() ctx: AuditContext): Promise<AdminOfferDto> {
    return this.offers.create(dto, ctx);
  }

  @Get()
  @ApiOperation({
    operationId: 'adminListOffers',
    summary: 'List offers, newest first (keyset paged)',
    description: 'Every offer with its rewards, window, budget and targeting. Keyset paged.',
  })
  @ApiPageResponse(AdminOfferDto)
  list(@Query() q: OfferListQuery) {
    return this.offers.list(q.limit ?? 100, q.cursor, {
      status: q.status,
      merchant_id: q.merchant_id,
    });
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'adminGetOffer',
    summary: 'Get one offer',
    description:
      'The offer with its translations, budget use and targeting; 404 `offer_not_found` when unknown.',
  })
  @ApiOkResponse({ type: AdminOfferDto })
  @ApiNotFoundResponse({ description: '`offer_not_found`', type: ErrorResponseDto })
  get(@Param('id', uuidPipe) id: string): Promise<AdminOfferDto> {
    return this.offers.get(id);
  }

  @Patch(':id')
  @OperatorCan({ among: ['offers.author', 'offers.approve'], pick: offerChangePermissions })
  @ApiOperation({
    operationId: 'adminUpdateOffer',
    summary: 'Change an offer (status, rewards, window, budget, segments, targeting)',
    description:
      'Only the fields sent change. Pausing or ending an offer stops new matches at once; redemptions already made stay. A status change to `active`, `paused` or `ended` is a change for an approver (or an admin), every other field one for an author (or an admin); a change with both needs a role that may do both. `holdout_percent` can change only while no cardholder has added the offer and it has never been active at or after `starts_at`.',
  })
  @ApiOkResponse({ type: AdminOfferDto })
  @ApiNotFoundResponse({ description: '`offer_not_found`', type: ErrorResponseDto })
  @ApiConflictResponse({
    description: '`holdout_locked`: the holdout cannot change any more',
    type: ErrorResponseDto,
  })
  update(
    @Param('id', uuidPipe) id: string,
    @Body() dto: UpdateOfferDto,
    @Audit() ctx: AuditContext,
  ): Promise<AdminOfferDto> {
    return this.offers.update(id, dto, ctx);
  }
}
