import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  ApiAcceptedResponse,
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
import {
  AdminOfferDto,
  CreateOfferDto,
  OfferListQuery,
  OfferSimulationDto,
  OfferUpdateAcceptedDto,
  OfferVersionListDto,
  RejectOfferDto,
  SimulateOfferDto,
  UpdateOfferDto,
} from './offers.dto';
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
  @ApiConflictResponse({
    description:
      '`approval_required`: with OFFER_APPROVAL=required a named operator creates drafts only (the break-glass token is exempt, and audited)',
    type: ErrorResponseDto,
    example: {
      error: 'approval_required',
      message:
        'Offers start as drafts: create it with status draft, submit it, and have an approver approve it.',
      request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
    },
  })
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
      'Only the fields sent change. Pausing or ending an offer stops new matches at once; redemptions already made stay. A status change to `active`, `paused` or `ended` is a change for an approver (or an admin), every other field one for an author (or an admin); a change with both needs a role that may do both. `holdout_percent` can change only while no cardholder has added the offer and it has never been active at or after `starts_at`. ' +
      'With OFFER_APPROVAL=required and a named operator: a draft cannot be activated here (`409 approval_required`: submit, then approve); on a live offer the texts, priority and status change at once, and money edits (reward, caps, budget, window, rules, qualification, goal, targeting, holdout) answer `202` with the live offer and the pending version, which waits for approval while the live version keeps paying. The break-glass token is exempt (audited).',
  })
  @ApiOkResponse({ type: AdminOfferDto })
  @ApiAcceptedResponse({
    type: OfferUpdateAcceptedDto,
    description: 'A money edit of a live offer, waiting for approval',
  })
  @ApiNotFoundResponse({ description: '`offer_not_found`', type: ErrorResponseDto })
  @ApiConflictResponse({
    description:
      '`holdout_locked`: the holdout cannot change any more; `approval_required`: a draft goes live only through submit and approve',
    type: ErrorResponseDto,
  })
  async update(
    @Param('id', uuidPipe) id: string,
    @Body() dto: UpdateOfferDto,
    @Audit() ctx: AuditContext,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AdminOfferDto | OfferUpdateAcceptedDto> {
    const outcome = await this.offers.update(id, dto, ctx);
    res.status(outcome.status);
    return outcome.body;
  }

  @Post(':id/submit')
  @HttpCode(200)
  @OperatorCan('offers.author')
  @ApiOperation({
    operationId: 'adminSubmitOffer',
    summary: "Send the offer's draft version for approval",
    description:
      'A new offer goes from `draft` to `in_review`; a live offer’s pending version sent back by a rejection goes to review again. `409 nothing_to_submit` when there is no draft version.',
  })
  @ApiOkResponse({ type: AdminOfferDto })
  @ApiNotFoundResponse({ description: '`offer_not_found`', type: ErrorResponseDto })
  @ApiConflictResponse({
    description: '`nothing_to_submit`: no draft version (already in review, or nothing changed)',
    type: ErrorResponseDto,
  })
  submit(@Param('id', uuidPipe) id: string, @Audit() ctx: AuditContext): Promise<AdminOfferDto> {
    return this.offers.submit(id, ctx);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @OperatorCan('offers.approve')
  @ApiOperation({
    operationId: 'adminApproveOffer',
    summary: 'Approve the version in review: it goes live',
    description:
      'By an approver or admin who has not changed the version since its last approval (`409 same_operator`; an author gets `403 insufficient_role`). A new offer becomes `active` (shown from its `starts_at`); a pending version replaces the live terms, and purchases made from now on are judged by it (earlier ones keep the terms live when they were made). `409 holdout_locked` when it changes the holdout of an offer that has been live.',
  })
  @ApiOkResponse({ type: AdminOfferDto })
  @ApiNotFoundResponse({ description: '`offer_not_found`', type: ErrorResponseDto })
  @ApiConflictResponse({
    description:
      '`same_operator`: you changed this version; `not_in_review`: nothing waits for approval; `holdout_locked`',
    type: ErrorResponseDto,
    example: {
      error: 'same_operator',
      message:
        'You changed this version since its last approval: another approver must approve it.',
      request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
    },
  })
  approve(@Param('id', uuidPipe) id: string, @Audit() ctx: AuditContext): Promise<AdminOfferDto> {
    return this.offers.approve(id, ctx);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @OperatorCan('offers.approve')
  @ApiOperation({
    operationId: 'adminRejectOffer',
    summary: 'Send the version in review back to draft, with a note',
    description:
      'The version goes back to `draft` (a new offer too) with the note; its author changes it and submits it again. The live version, if any, keeps paying.',
  })
  @ApiOkResponse({ type: AdminOfferDto })
  @ApiNotFoundResponse({ description: '`offer_not_found`', type: ErrorResponseDto })
  @ApiConflictResponse({
    description: '`not_in_review`: nothing waits for approval',
    type: ErrorResponseDto,
  })
  reject(
    @Param('id', uuidPipe) id: string,
    @Body() dto: RejectOfferDto,
    @Audit() ctx: AuditContext,
  ): Promise<AdminOfferDto> {
    return this.offers.reject(id, dto.note, ctx);
  }

  @Get(':id/versions')
  @ApiOperation({
    operationId: 'adminListOfferVersions',
    summary: "The offer's versions, newest first, with what each changed",
    description:
      'Each version: its status, who created and approved it, when it took effect, its terms and its changes (`from`, `to` in the API’s units) from the version live before it.',
  })
  @ApiOkResponse({ type: OfferVersionListDto })
  @ApiNotFoundResponse({ description: '`offer_not_found`', type: ErrorResponseDto })
  versions(@Param('id', uuidPipe) id: string): Promise<OfferVersionListDto> {
    return this.offers.listVersions(id);
  }

  @Post(':id/simulate')
  @HttpCode(200)
  @OperatorCan('read')
  @ApiOperation({
    operationId: 'adminSimulateOffer',
    summary: 'Try a purchase against the draft or pending version',
    description:
      'Evaluates the purchase against the offer’s open version (draft or pending; the live terms when none) as if the offer were active and the cardholder enrolled in it, through matching’s own evaluation (the same as POST /api/v1/transactions/simulate, with the same reasons); nothing is stored. Every role may try.',
  })
  @ApiOkResponse({ type: OfferSimulationDto })
  @ApiNotFoundResponse({
    description: '`offer_not_found`, `institution_not_found`',
    type: ErrorResponseDto,
  })
  simulate(
    @Param('id', uuidPipe) id: string,
    @Body() dto: SimulateOfferDto,
  ): Promise<OfferSimulationDto> {
    return this.offers.simulate(id, dto.institution_id, dto.purchase);
  }
}
