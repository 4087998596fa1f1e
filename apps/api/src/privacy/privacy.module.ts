import { Module } from '@nestjs/common';
import { PrivacyCoreModule } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { PrivacyController } from './privacy.controller';
import { PrivacyService } from './privacy.service';

/** Right to erasure and of access (docs/privacy.md): scope `privacy`; the worker erases. */
@Module({
  imports: [AuthModule, PrivacyCoreModule],
  controllers: [PrivacyController],
  providers: [PrivacyService],
})
export class PrivacyModule {}
