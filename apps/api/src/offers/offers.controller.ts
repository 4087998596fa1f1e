import { Body, Controller, Get, Header, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiKeyPrincipal } from '../auth/auth.types';
import { CurrentKey } from '../auth/current-key.decorator';
import { ApiKeyAuth } from '../auth/scopes.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import { EnrollmentsService } from './enrollments.service';
import { OfferFeedService } from './offer-feed.service';
import { AddOfferDto, EnrollmentResultDto, FeedQueryDto, FeedResponseDto } from './offers.dto';

const example = (error: string, message: string) => ({
  error,
  message,
  request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
});

@ApiTags('Offers')
@Controller('api/v1/offers')
export class OffersController {
  constructor(
    private readonly feedService: OfferFeedService,
    private readonly enrollments: EnrollmentsService,
  ) {}

  @Get()
  // Cardholder-specific: no shared cache (CDN, proxy) may keep it.
  @Header('Cache-Control', 'no-store')
  @ApiKeyAuth('offers')
  @ApiOperation({
    operationId: 'listOffers',
    summary: 'Offer feed for a cardholder',
    description:
      'Active offers targeted at your institution with budget left, passing the segment rule and not redeemed to the per-cardholder limit, ' +
      'in the program’s sort order (or by affinity with personalize=true). `total` counts eligible offers before `limit`. ' +
      'Each call records a widget view and one impression per offer returned (reporting funnel).',
  })
  @ApiOkResponse({ type: FeedResponseDto })
  @ApiBadRequestResponse({
    description:
      'Invalid query (`validation_failed` with details, e.g. limit outside 1–100), or a token that is personal data (`pii_rejected`)',
    type: ErrorResponseDto,
    examples: {
      validation_failed: {
        summary: 'limit out of range',
        value: {
          ...example('validation_failed', 'The request is invalid.'),
          details: [{ field: 'limit', message: 'limit must not be greater than 100' }],
        },
      },
      pii_rejected: {
        summary: 'e-mail as a token',
        value: example(
          'pii_rejected',
          'A token field holds what looks like personal data; send opaque tokens only.',
        ),
      },
    },
  })
  feed(@CurrentKey() key: ApiKeyPrincipal, @Query() query: FeedQueryDto): Promise<FeedResponseDto> {
    return this.feedService.feed(key.institutionId, query);
  }

  @Post(':id/add')
  @ApiForbiddenResponse({
    description: 'A segment-limited offer without a matching segment (`segment_not_eligible`)',
    type: ErrorResponseDto,
    examples: {
      segment_not_eligible: {
        summary: 'segment does not qualify',
        value: example(
          'segment_not_eligible',
          'The offer is limited to segments that the request does not match.',
        ),
      },
    },
  })
  @ApiKeyAuth('offers')
  @ApiOperation({
    operationId: 'addOffer',
    summary: 'Enroll a cardholder in an offer',
    description:
      'Idempotent: the first add answers 201 `added`, every later add of the same offer for the cardholder 200 `already_added` with the same ' +
      '`cardholder_offer_id`. The program’s maximum of active offers holds under concurrent adds.',
  })
  @ApiParam({
    name: 'id',
    description: 'Offer id',
    example: 'c5d8a7e2-4b1f-4c3d-9e8a-7b6c5d4e3f21',
  })
  @ApiCreatedResponse({ type: EnrollmentResultDto, description: 'Enrolled: `status` is `added`' })
  @ApiOkResponse({
    type: EnrollmentResultDto,
    description:
      'Already enrolled: `status` is `already_added`, with the enrollment of the first add',
    example: {
      status: 'already_added',
      cardholder_offer_id: '8b0c6f1e-2d3a-4e5f-9a8b-7c6d5e4f3a21',
    },
  })
  @ApiBadRequestResponse({
    description:
      'Invalid body or offer id (`validation_failed`), or a token that is personal data (`pii_rejected`)',
    type: ErrorResponseDto,
  })
  @ApiNotFoundResponse({
    description: 'Unknown offer, or one not offered to your institution (`offer_not_found`)',
    type: ErrorResponseDto,
    example: example('offer_not_found', 'No such offer, or it is not offered to this institution.'),
  })
  @ApiConflictResponse({
    description:
      'The offer is not active, expired or out of budget (`offer_unavailable`); the cardholder holds the maximum of active offers (`max_active_offers`)',
    type: ErrorResponseDto,
    examples: {
      offer_unavailable: {
        summary: 'offer not available',
        value: example(
          'offer_unavailable',
          'The offer is not active, has expired or has no budget left.',
        ),
      },
      max_active_offers: {
        summary: 'cap reached',
        value: example(
          'max_active_offers',
          "The cardholder already holds the program's maximum of active offers.",
        ),
      },
    },
  })
  @ApiServiceUnavailableResponse({
    description:
      'Too many concurrent adds for one cardholder (`enrollment_busy`); retry after Retry-After',
    type: ErrorResponseDto,
  })
  async add(
    @CurrentKey() key: ApiKeyPrincipal,
    @Param('id', uuidPipe) offerId: string,
    @Body() body: AddOfferDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EnrollmentResultDto> {
    const result = await this.enrollments.add(key.institutionId, offerId, body);
    res.status(result.status === 'added' ? 201 : 200);
    return result;
  }
}
