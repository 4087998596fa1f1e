import { Module } from '@nestjs/common';
import { InstitutionsController } from './institutions.controller';
import { InstitutionsService } from './institutions.service';
import { MerchantsController } from './merchants.controller';
import { MerchantsService } from './merchants.service';
import { OffersAdminController } from './offers-admin.controller';
import { OffersAdminService } from './offers-admin.service';
import { OperatorGuard } from './operator.guard';
import { SettlementsAdminController } from './settlements-admin.controller';

/** The operators' API under /admin/api/v1 (Bearer OPERATOR_TOKEN). */
@Module({
  controllers: [
    InstitutionsController,
    MerchantsController,
    OffersAdminController,
    SettlementsAdminController,
  ],
  providers: [OperatorGuard, InstitutionsService, MerchantsService, OffersAdminService],
  exports: [InstitutionsService, MerchantsService, OffersAdminService],
})
export class AdminModule {}
