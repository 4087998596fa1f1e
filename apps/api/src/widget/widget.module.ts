import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { OffersModule } from '../offers/offers.module';
import { CardholderSessionsController } from './cardholder-sessions.controller';
import { CardholderSessionsService } from './cardholder-sessions.service';
import { WidgetController } from './widget.controller';
import { WidgetPreflightMiddleware } from './widget-preflight.middleware';
import { WidgetSessionGuard } from './widget-session.guard';
import { WidgetSettingsRepository } from './widget-settings.repository';
import { WidgetSettingsService } from './widget-settings.service';

/**
 * The embeddable widget: cardholder sessions (POST /api/v1/cardholder-sessions), the
 * browser-facing widget API (/widget/v1, CORS) and the widget settings (the portal's routes for
 * them are in portal/widget). The bundle itself is served as a static file (widget-assets.ts).
 */
@Module({
  imports: [OffersModule, AuthModule],
  controllers: [CardholderSessionsController, WidgetController],
  providers: [
    CardholderSessionsService,
    WidgetSessionGuard,
    WidgetSettingsRepository,
    WidgetSettingsService,
    WidgetPreflightMiddleware,
  ],
  exports: [CardholderSessionsService, WidgetSettingsService],
})
export class WidgetModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(WidgetPreflightMiddleware)
      .forRoutes(
        { path: 'widget/v1/offers', method: RequestMethod.OPTIONS },
        { path: 'widget/v1/offers/:id/add', method: RequestMethod.OPTIONS },
      );
  }
}
