import { Controller, Get, Header, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import { EnrollmentsService } from '../offers/enrollments.service';
import { OfferFeedService } from '../offers/offer-feed.service';
import { EnrollmentResultDto } from '../offers/offers.dto';
import { WidgetFeedQueryDto, WidgetFeedResponseDto } from './widget.dto';
import { WidgetSessionAuth } from './widget-session.guard';

/**
 * The browser-facing widget API: the same feed and add as /api/v1/offers (same services, same
 * rules and answers), with the cardholder, segment and locale taken from the session.
 */
@ApiTags('Widget')
@Controller('widget/v1/offers')
export class WidgetController {
  constructor(
    private readonly feedService: OfferFeedService,
    private readonly enrollments: EnrollmentsService,
  ) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @WidgetSessionAuth()
  @ApiOperation({
    operationId: 'widgetListOffers',
    summary: 'The session cardholder’s offer feed (for the widget)',
    description:
      'The feed of GET /api/v1/offers for the session’s cardholder and segment, in the session’s locale unless `locale` asks for another, ' +
      'personalized when the institution enables it for the widget, plus the institution’s theme defaults. ' +
      'Records one widget view and one impression per offer returned (portal previews record nothing).',
  })
  @ApiOkResponse({ type: WidgetFeedResponseDto })
  @ApiBadRequestResponse({
    description: 'Invalid query (`validation_failed`)',
    type: ErrorResponseDto,
  })
  async feed(@Req() req: Request, @Query() q: WidgetFeedQueryDto): Promise<WidgetFeedResponseDto> {
    const s = req.widgetSession!;
    const feed = await this.feedService.feed(
      s.institutionId,
      {
        cardholder_token: s.cardholderToken,
        segment: s.segment,
        locale: q.locale ?? s.locale,
        limit: q.limit,
        personalize: s.personalize ? 'true' : undefined,
      },
      { count: !s.preview },
    );
    return { ...feed, theme: s.theme };
  }

  @Post(':id/add')
  @WidgetSessionAuth()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'widgetAddOffer',
    summary: 'Add an offer for the session’s cardholder (for the widget)',
    description:
      'The add of POST /api/v1/offers/{id}/add with the session’s cardholder, card and segment: 201 `added`, 200 `already_added`, ' +
      '403 `segment_not_eligible`, 409 `max_active_offers` or `offer_unavailable`; a portal preview session gets 403 `preview_read_only` and nothing is written. No body.',
  })
  @ApiParam({
    name: 'id',
    description: 'Offer id',
    example: 'c5d8a7e2-4b1f-4c3d-9e8a-7b6c5d4e3f21',
  })
  @ApiCreatedResponse({ type: EnrollmentResultDto, description: 'Enrolled: `status` is `added`' })
  @ApiOkResponse({ type: EnrollmentResultDto, description: 'Already enrolled: `already_added`' })
  @ApiBadRequestResponse({
    description: 'Invalid offer id (`validation_failed`)',
    type: ErrorResponseDto,
  })
  @ApiNotFoundResponse({ description: 'Unknown offer (`offer_not_found`)', type: ErrorResponseDto })
  @ApiForbiddenResponse({
    description:
      '`segment_not_eligible`, or `preview_read_only` for a portal preview session (nothing written)',
    type: ErrorResponseDto,
    example: {
      error: 'preview_read_only',
      message: 'Adding is disabled in the preview: the preview session is read-only.',
      request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
    },
  })
  @ApiConflictResponse({
    description: '`offer_unavailable` or `max_active_offers`',
    type: ErrorResponseDto,
    example: {
      error: 'max_active_offers',
      message: "The cardholder already holds the program's maximum of active offers.",
      request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
    },
  })
  async add(
    @Req() req: Request,
    @Param('id', uuidPipe) offerId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EnrollmentResultDto> {
    const s = req.widgetSession!;
    // The portal's preview shows the widget as a test cardholder: it may look, never enroll.
    if (s.preview)
      throw ApiError.forbidden(
        'preview_read_only',
        'Adding is disabled in the preview: the preview session is read-only.',
      );
    const result = await this.enrollments.add(s.institutionId, offerId, {
      cardholder_token: s.cardholderToken,
      card_token: s.cardToken,
      segment: s.segment,
    });
    res.status(result.status === 'added' ? 201 : 200);
    return result;
  }
}
