import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EngagementRecorder } from './engagement-recorder.service';
import { EnrollmentsRepository } from './enrollments.repository';
import { EnrollmentsService } from './enrollments.service';
import { OfferCatalogue } from './offer-catalogue.service';
import { OfferFeedService } from './offer-feed.service';
import { OfferPopularity } from './offer-popularity.service';
import { OffersController } from './offers.controller';

/** Offer feed (GET /api/v1/offers), enrollment (POST /api/v1/offers/{id}/add) and their funnel events. */
@Module({
  imports: [AuthModule],
  controllers: [OffersController],
  providers: [
    OfferCatalogue,
    OfferPopularity,
    OfferFeedService,
    EnrollmentsRepository,
    EnrollmentsService,
    EngagementRecorder,
  ],
  exports: [EngagementRecorder, OfferFeedService, EnrollmentsService],
})
export class OffersModule {}
