import { Module } from '@nestjs/common';
import { HoldoutKeys } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { EngagementEventsRepository } from './engagement-events.repository';
import { EngagementRecorder } from './engagement-recorder.service';
import { EnrollmentsRepository } from './enrollments.repository';
import { EnrollmentsService } from './enrollments.service';
import { OfferCatalogue } from './offer-catalogue.service';
import { OfferFeedRepository } from './offer-feed.repository';
import { OfferFeedService } from './offer-feed.service';
import { OfferPopularity } from './offer-popularity.service';
import { OffersController } from './offers.controller';

/** Offer feed (GET /api/v1/offers), enrollment (POST /api/v1/offers/{id}/add) and their funnel events. */
@Module({
  imports: [AuthModule],
  controllers: [OffersController],
  providers: [
    OfferFeedRepository,
    OfferCatalogue,
    OfferPopularity,
    OfferFeedService,
    EnrollmentsRepository,
    EnrollmentsService,
    EngagementEventsRepository,
    EngagementRecorder,
    HoldoutKeys,
  ],
  exports: [EngagementRecorder, OfferFeedService, EnrollmentsService],
})
export class OffersModule {}
