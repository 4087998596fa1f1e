import { Module } from '@nestjs/common';
import { ClaimsCoreModule } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { ClaimsAdminController } from './claims-admin.controller';
import { ClaimsApiService } from './claims-api.service';
import { ClaimsController } from './claims.controller';

/** Claims for missing rewards (scope `claims`), and the operators' review of pending ones. */
@Module({
  imports: [AuthModule, ClaimsCoreModule],
  controllers: [ClaimsController, ClaimsAdminController],
  providers: [ClaimsApiService],
  exports: [ClaimsApiService],
})
export class ClaimsModule {}
