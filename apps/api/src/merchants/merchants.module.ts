import { Module } from '@nestjs/common';
import { TransactionsCoreModule } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { MerchantMappingController } from './merchant-mapping.controller';
import { MerchantMappingService } from './merchant-mapping.service';

/** POST /api/v1/merchants/resolve (scope transactions). */
@Module({
  imports: [TransactionsCoreModule, AuthModule],
  controllers: [MerchantMappingController],
  providers: [MerchantMappingService],
})
export class MerchantsModule {}
