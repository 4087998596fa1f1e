import { Module } from '@nestjs/common';
import { MerchantResolutionRepository } from './merchant-resolution.repository';
import { MerchantResolver } from './merchant-resolver';

/** Merchant resolution (identifier → merchant) for the api's merchants endpoints. */
@Module({
  providers: [MerchantResolutionRepository, MerchantResolver],
  exports: [MerchantResolver],
})
export class MerchantsCoreModule {}
