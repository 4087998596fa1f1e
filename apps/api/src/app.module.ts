import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig, ConfigModule } from '@app/config';
import { DbModule, HealthRepository } from '@app/db';
import { AdminModule } from './admin/admin.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { ErrorFilter } from './common/error.filter';
import { loggerParams } from './common/logging';
import { RedisModule } from './common/redis.module';
import { HealthController } from './health/health.controller';
import { LiftModule } from './lift/lift.module';
import { MerchantsModule } from './merchants/merchants.module';
import { OffersModule } from './offers/offers.module';
import { OperationsModule } from './operations/operations.module';
import { OperatorsModule } from './operators/operators.module';
import { PortalModule } from './portal/portal.module';
import { PortalWidgetModule } from './portal/widget/portal-widget.module';
import { PrivacyModule } from './privacy/privacy.module';
import { ReportingModule } from './reporting/reporting.module';
import { RetentionModule } from './retention/retention.module';
import { StatementsModule } from './statements/statements.module';
import { ClaimsModule } from './claims/claims.module';
import { WidgetModule } from './widget/widget.module';
import { TransactionsModule } from './transactions/transactions.module';

@Module({
  imports: [
    ConfigModule,
    LoggerModule.forRootAsync({ inject: [AppConfig], useFactory: loggerParams }),
    DbModule,
    RedisModule,
    AuthModule,
    AdminModule,
    PortalModule,
    ReportingModule,
    StatementsModule,
    ClaimsModule,
    OffersModule,
    OperationsModule,
    TransactionsModule,
    MerchantsModule,
    WidgetModule,
    PortalWidgetModule,
    LiftModule,
    RetentionModule,
    PrivacyModule,
    OperatorsModule,
    AuditModule,
  ],
  controllers: [HealthController],
  providers: [HealthRepository, { provide: APP_FILTER, useClass: ErrorFilter }],
})
export class AppModule {}
