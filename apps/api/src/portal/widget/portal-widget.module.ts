import { Module } from '@nestjs/common';
import { WidgetModule } from '../../widget/widget.module';
import { PortalModule } from '../portal.module';
import { PortalWidgetController } from './portal-widget.controller';

/**
 * The portal's widget routes (/portal/api/widget: settings and preview sessions) over the
 * widget module's services; a module of its own so that the widget module need not know the portal.
 */
@Module({
  imports: [PortalModule, WidgetModule],
  controllers: [PortalWidgetController],
})
export class PortalWidgetModule {}
