import { Module } from '@nestjs/common';
import { MatchingCoreModule, TransactionsCoreModule } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { InstitutionsController } from './institutions.controller';
import { InstitutionsRepository } from './institutions.repository';
import { InstitutionsService } from './institutions.service';
import { MatchFailuresAdminController } from './match-failures-admin.controller';
import { MerchantsController } from './merchants.controller';
import { MerchantsRepository } from './merchants.repository';
import { MerchantsService } from './merchants.service';
import { OffersAdminController } from './offers-admin.controller';
import { OffersAdminService } from './offers-admin.service';
import { OffersRepository } from './offers.repository';
import { OfferVersionsRepository } from './offer-versions.repository';
import { OperatorGuard } from './operator.guard';
import { SettlementsAdminController } from './settlements-admin.controller';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WebhooksAdminController } from './webhooks-admin.controller';

/** The operators' API under /admin/api/v1 (Bearer OPERATOR_TOKEN). */
@Module({
  imports: [WebhooksModule, AuthModule, TransactionsCoreModule, MatchingCoreModule],
  controllers: [
    InstitutionsController,
    MatchFailuresAdminController,
    MerchantsController,
    OffersAdminController,
    SettlementsAdminController,
    WebhooksAdminController,
  ],
  providers: [
    OperatorGuard,
    InstitutionsRepository,
    InstitutionsService,
    MerchantsRepository,
    MerchantsService,
    OffersRepository,
    OfferVersionsRepository,
    OffersAdminService,
  ],
  exports: [InstitutionsService, MerchantsService, OffersAdminService],
})
export class AdminModule {}
