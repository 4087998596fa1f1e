import { Body, Controller, Get, Post, Put, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { ErrorResponseDto } from '../../common/error-response.dto';
import { PortalAuth, StaffArea } from '../portal-session.guard';
import { CardholderSessionsService } from '../../widget/cardholder-sessions.service';
import {
  CardholderSessionDto,
  PreviewSessionDto,
  UpdateWidgetSettingsDto,
  WidgetSettingsDto,
} from '../../widget/widget.dto';
import { WidgetSettingsService } from '../../widget/widget-settings.service';

const PREVIEW_TTL_SECONDS = 900;
const requestOrigin = (req: Request) => `${req.protocol}://${req.get('host')}`;

@ApiTags('Portal')
@StaffArea('widget')
@Controller('portal/api/widget')
export class PortalWidgetController {
  constructor(
    private readonly settings: WidgetSettingsService,
    private readonly sessions: CardholderSessionsService,
  ) {}

  @Get()
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalGetWidget',
    summary: 'Widget settings: allowed origins, theme defaults, personalization, script URL',
    description:
      "The institution's widget configuration and the two lines to paste into its page (the script URL from PUBLIC_BASE_URL or the request's origin).",
  })
  @ApiOkResponse({ type: WidgetSettingsDto })
  get(@Req() req: Request): Promise<WidgetSettingsDto> {
    return this.settings.get(req.portalUser!.institutionId, requestOrigin(req));
  }

  @Put()
  @PortalAuth('manage')
  @ApiOperation({
    operationId: 'portalSetWidget',
    summary: 'Set the widget settings (admins)',
    description:
      'Allowed origins are exact origins (`https://online.bank.example`), https only in production; a change is recorded in the security activity.',
  })
  @ApiOkResponse({ type: WidgetSettingsDto })
  @ApiBadRequestResponse({
    description:
      '`validation_failed`: an entry that is not an exact https origin, or a bad theme value',
    type: ErrorResponseDto,
  })
  put(@Req() req: Request, @Body() dto: UpdateWidgetSettingsDto): Promise<WidgetSettingsDto> {
    return this.settings.update(req.portalUser!, dto, req.ip, requestOrigin(req));
  }

  @Post('preview-session')
  @PortalAuth('manage')
  @ApiOperation({
    operationId: 'portalWidgetPreviewSession',
    summary: 'A cardholder session for the live preview (admins)',
    description:
      'For a test cardholder (default `portal-preview`), 15 minutes. What the preview shows and adds is not counted in the funnel.',
  })
  @ApiCreatedResponse({ type: CardholderSessionDto })
  preview(@Req() req: Request, @Body() dto: PreviewSessionDto): CardholderSessionDto {
    return this.sessions.mint(
      req.portalUser!.institutionId,
      {
        cardholder_token: dto.cardholder_token ?? 'portal-preview',
        locale: dto.locale,
        segment: dto.segment,
        ttl_seconds: PREVIEW_TTL_SECONDS,
      },
      { preview: true },
    );
  }
}
