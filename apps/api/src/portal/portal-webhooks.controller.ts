import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Put,
  Query,
  Req,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Page } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import { PortalAuth, StaffArea } from './portal-session.guard';
import {
  DeliveryListQuery,
  RedeliveryAcceptedDto,
  ResumedDto,
  RotateSecretDto,
  SECRET_OVERLAP_DEFAULT_SECONDS,
  SigningSecretDto,
  StartReplayDto,
  TestEventAcceptedDto,
  UpdateCustomHeadersDto,
  UpdateRateCapDto,
  UploadClientCertificateDto,
  WebhookReplayDto,
  WebhookReplayListDto,
  WebhookStatsDto,
  UpdateWebhookDto,
  WebhookDeliveryDetailDto,
  WebhookDeliveryDto,
  WebhookDeliveryPageDto,
  WebhookSettingsDto,
} from '../webhooks/webhooks.dto';
import { UpdateEventTypesDto, WEBHOOK_EVENT_MODELS } from '../webhooks/webhook-events.dto';
import { WebhookDeliveriesService } from '../webhooks/webhook-deliveries.service';
import { WebhookSettingsService } from '../webhooks/webhook-settings.service';

/** The redemption webhook in the portal: URL, signing secret, delivery log, redelivery. */
/**
 * A change of the webhook settings: admins only, answers the settings as they now are; `refused`
 * says what a 400 `validation_failed` means for this change.
 */
function SettingsChange(refused?: string) {
  return applyDecorators(
    ...(refused ? [ApiBadRequestResponse({ description: refused, type: ErrorResponseDto })] : []),
    ApiOkResponse({ type: WebhookSettingsDto }),
    PortalAuth('manage'),
  );
}

@ApiTags('Portal')
@ApiExtraModels(...WEBHOOK_EVENT_MODELS)
@StaffArea('webhooks')
@Controller('portal/api/webhook')
export class PortalWebhooksController {
  constructor(
    private readonly settings: WebhookSettingsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Get()
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalGetWebhook',
    summary: 'The webhook URL and whether a signing secret is set',
    description:
      'The webhook URL and whether a signing secret is set (the secret itself is shown only when rotated).',
  })
  @ApiOkResponse({ type: WebhookSettingsDto })
  get(@Req() req: Request): Promise<WebhookSettingsDto> {
    return this.settings.settings(req.portalUser!.institutionId);
  }

  @Put()
  @SettingsChange(
    '`validation_failed`: not an https URL, credentials in it, or a non-public address',
  )
  @ApiOperation({
    operationId: 'portalSetWebhookUrl',
    summary: 'Set (or remove, with null) the webhook URL (admins)',
    description:
      'https only, no credentials, and the host must resolve only to public addresses (checked again at every connection). Recorded in the security activity.',
  })
  put(@Req() req: Request, @Body() dto: UpdateWebhookDto): Promise<WebhookSettingsDto> {
    return this.settings.setUrl(req.portalUser!, dto.url, req.ip);
  }

  @Put('event-types')
  @SettingsChange(
    '`validation_failed`: an unknown type, or redemption.completed left out while a URL is set',
  )
  @ApiOperation({
    operationId: 'portalSetWebhookEventTypes',
    summary: 'Choose the event types delivered (admins)',
    description:
      'redemption.completed, redemption.reversed, redemption.settled (bodies: the RedemptionCompletedEventDto, RedemptionReversedEventDto and RedemptionSettledEventDto schemas). redemption.completed cannot be turned off while a URL is set. Recorded in the security activity.',
  })
  setEventTypes(
    @Req() req: Request,
    @Body() dto: UpdateEventTypesDto,
  ): Promise<WebhookSettingsDto> {
    return this.settings.setEventTypes(req.portalUser!, dto.event_types, req.ip);
  }

  @Put('headers')
  @SettingsChange('`validation_failed`: too many, a reserved or malformed name, or a bad value')
  @ApiOperation({
    operationId: 'portalSetWebhookHeaders',
    summary: 'Set the custom headers sent with every attempt (admins)',
    description:
      'At most 5. Values are stored encrypted, never shown again and never logged (the delivery log shows them hidden). Names cannot replace the headers the service sends. Recorded in the security activity (names only).',
  })
  setHeaders(
    @Req() req: Request,
    @Body() dto: UpdateCustomHeadersDto,
  ): Promise<WebhookSettingsDto> {
    return this.settings.setCustomHeaders(req.portalUser!, dto.headers, req.ip);
  }

  @Put('client-certificate')
  @SettingsChange(
    '`validation_failed`: unreadable, expired or not yet valid, or a key that does not match',
  )
  @ApiOperation({
    operationId: 'portalSetWebhookClientCertificate',
    summary: 'Upload a client certificate and key for mutual TLS (admins)',
    description:
      'Checked at upload: PEM, the key unencrypted and matching, the certificate valid now. Both are stored encrypted; the settings show subject and expiry. Recorded in the security activity.',
  })
  setClientCertificate(
    @Req() req: Request,
    @Body() dto: UploadClientCertificateDto,
  ): Promise<WebhookSettingsDto> {
    return this.settings.setClientCertificate(
      req.portalUser!,
      dto.certificate,
      dto.private_key,
      req.ip,
    );
  }

  @Delete('client-certificate')
  @SettingsChange()
  @ApiOperation({
    operationId: 'portalRemoveWebhookClientCertificate',
    summary: 'Remove the mutual TLS client certificate (admins)',
    description:
      'Deletes the stored certificate and key; later attempts connect without a client certificate. Recorded in the security activity.',
  })
  removeClientCertificate(@Req() req: Request): Promise<WebhookSettingsDto> {
    return this.settings.removeClientCertificate(req.portalUser!, req.ip);
  }

  @Put('rate-limit')
  @SettingsChange('`validation_failed`')
  @ApiOperation({
    operationId: 'portalSetWebhookRateCap',
    summary: 'Cap the attempts per second to the URL (admins); null removes the cap',
    description:
      'Attempts to the URL are spaced evenly to at most `max_per_second`, shared by every worker; deliveries wait rather than fail.',
  })
  setRateCap(@Req() req: Request, @Body() dto: UpdateRateCapDto): Promise<WebhookSettingsDto> {
    return this.settings.setRateCap(req.portalUser!, dto.max_per_second, req.ip);
  }

  @Post('resume')
  @PortalAuth('manage')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    operationId: 'portalResumeWebhook',
    summary: 'Resume paused deliveries (admins): pending ones are sent, oldest first',
    description:
      'Ends the pause of a URL that failed every attempt for WEBHOOK_DISABLE_AFTER_DAYS and queues every pending delivery again; 409 `webhook_not_paused` when it is not paused.',
  })
  @ApiOkResponse({ type: ResumedDto })
  @ApiConflictResponse({ description: '`webhook_not_paused`', type: ErrorResponseDto })
  resume(@Req() req: Request): Promise<ResumedDto> {
    return this.settings.resume(req.portalUser!, req.ip, req.id as string | undefined);
  }

  @Post('secret')
  @HttpCode(HttpStatus.CREATED)
  @PortalAuth('manage')
  @ApiOperation({
    operationId: 'portalRotateWebhookSecret',
    summary: 'Rotate the signing secret (admins); the new secret is in this response only',
    description:
      'The next attempt of every delivery is signed with the new secret. The previous secret keeps signing too (a second `webhook-signature`) for `overlap_seconds` (default 24 h, at most 7 days, 0 for none). Recorded in the security activity.',
  })
  @ApiCreatedResponse({ type: SigningSecretDto })
  @ApiBadRequestResponse({
    description: '`validation_failed`: overlap_seconds not an integer from 0 to 604800',
    type: ErrorResponseDto,
  })
  rotate(@Req() req: Request, @Body() dto: RotateSecretDto): Promise<SigningSecretDto> {
    return this.settings.rotateSecret(
      req.portalUser!,
      req.ip,
      dto.overlap_seconds ?? SECRET_OVERLAP_DEFAULT_SECONDS,
    );
  }

  @Delete('secret/previous')
  @SettingsChange()
  @ApiOperation({
    operationId: 'portalExpirePreviousWebhookSecret',
    summary: 'End a rotation overlap now: the previous secret stops signing (admins)',
    description: 'Recorded in the security activity when an overlap was running.',
  })
  expirePrevious(@Req() req: Request): Promise<WebhookSettingsDto> {
    return this.settings.expirePreviousSecret(req.portalUser!, req.ip);
  }

  @Get('deliveries')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalListWebhookDeliveries',
    summary: 'Webhook deliveries, newest first, optionally by status (keyset paged)',
    description:
      'Deliveries of `redemption.completed` webhooks, newest first, optionally filtered by status. Keyset paged.',
  })
  @ApiOkResponse({ type: WebhookDeliveryPageDto })
  @ApiBadRequestResponse({
    description: 'Bad status, cursor or limit (`validation_failed`)',
    type: ErrorResponseDto,
  })
  list(@Req() req: Request, @Query() q: DeliveryListQuery): Promise<Page<WebhookDeliveryDto>> {
    return this.deliveries.list(req.portalUser!.institutionId, q);
  }

  @Get('deliveries/:id')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalGetWebhookDelivery',
    summary: 'One delivery with its payload and every attempt',
    description: 'One delivery with its payload and every attempt (status code, duration, error).',
  })
  @ApiOkResponse({ type: WebhookDeliveryDetailDto })
  @ApiNotFoundResponse({
    description: "`delivery_not_found` (also for another institution's delivery)",
    type: ErrorResponseDto,
  })
  detail(
    @Req() req: Request,
    @Param('id', uuidPipe) id: string,
  ): Promise<WebhookDeliveryDetailDto> {
    return this.deliveries.detail(req.portalUser!.institutionId, id);
  }

  @Post('deliveries/:id/redeliver')
  @HttpCode(HttpStatus.ACCEPTED)
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalRedeliverWebhook',
    summary: 'Send a delivery again: one manual attempt, same payload and X-Service-Delivery-Id',
    description:
      'For delivered, failed or skipped deliveries, once a URL and signing secret are set. Any portal user may redeliver.',
  })
  @ApiAcceptedResponse({ type: RedeliveryAcceptedDto })
  @ApiNotFoundResponse({ description: '`delivery_not_found`', type: ErrorResponseDto })
  @ApiConflictResponse({
    description: '`delivery_in_progress` (still pending) or `webhook_not_configured`',
    type: ErrorResponseDto,
  })
  redeliver(
    @Req() req: Request,
    @Param('id', uuidPipe) id: string,
  ): Promise<RedeliveryAcceptedDto> {
    return this.deliveries.redeliver(
      req.portalUser!.institutionId,
      id,
      req.id as string | undefined,
    );
  }

  @Post('test')
  @HttpCode(HttpStatus.ACCEPTED)
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalSendWebhookTest',
    summary: 'Send a webhook.test event now',
    description:
      'A `webhook.test` delivery (body: the WebhookTestEventDto schema) is queued at once; follow its attempt with GET …/deliveries/{id}. Recorded in the security activity.',
  })
  @ApiAcceptedResponse({ type: TestEventAcceptedDto })
  @ApiConflictResponse({ description: '`webhook_not_configured`', type: ErrorResponseDto })
  sendTest(@Req() req: Request): Promise<TestEventAcceptedDto> {
    const p = req.portalUser!;
    return this.deliveries.sendTest(p.institutionId, p.email, req.ip, req.id as string | undefined);
  }

  @Post('replays')
  @HttpCode(HttpStatus.ACCEPTED)
  @PortalAuth('manage')
  @ApiOperation({
    operationId: 'portalStartWebhookReplay',
    summary: 'Replay failed deliveries since a time (admins)',
    description:
      'Every `failed` delivery created in [since, until) gets one manual redelivery with its own delivery id and body, at a paced rate (WEBHOOK_REPLAY_RATE_PER_S), at most 10,000 per replay, one replay at a time. Follow the progress with GET …/replays/{id}. Recorded in the security activity.',
  })
  @ApiAcceptedResponse({ type: WebhookReplayDto })
  @ApiBadRequestResponse({
    description: '`validation_failed`: bad timestamps, or since not before until',
    type: ErrorResponseDto,
  })
  @ApiConflictResponse({
    description: '`replay_running` or `webhook_not_configured`',
    type: ErrorResponseDto,
  })
  startReplay(@Req() req: Request, @Body() dto: StartReplayDto): Promise<WebhookReplayDto> {
    const p = req.portalUser!;
    return this.deliveries.startReplay(p.institutionId, p.email, dto, req.ip);
  }

  @Get('replays')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalListWebhookReplays',
    summary: 'The last 20 replays, newest first',
    description: "Each replay's window, status and progress (total and done).",
  })
  @ApiOkResponse({ type: WebhookReplayListDto })
  replays(@Req() req: Request): Promise<WebhookReplayListDto> {
    return this.deliveries.recentReplays(req.portalUser!.institutionId);
  }

  @Get('replays/:id')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalGetWebhookReplay',
    summary: "One replay's progress",
    description:
      'Status, total and done of one replay of your institution; 404 `replay_not_found`.',
  })
  @ApiOkResponse({ type: WebhookReplayDto })
  @ApiNotFoundResponse({ description: '`replay_not_found`', type: ErrorResponseDto })
  replay(@Req() req: Request, @Param('id', uuidPipe) id: string): Promise<WebhookReplayDto> {
    return this.deliveries.replay(req.portalUser!.institutionId, id);
  }

  @Get('stats')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalGetWebhookStats',
    summary: 'Deliveries delivered and failed per hour, last 7 days',
    description:
      "Counts per UTC hour for the dashboard's delivery chart; hours without deliveries are absent.",
  })
  @ApiOkResponse({ type: WebhookStatsDto })
  stats(@Req() req: Request): Promise<WebhookStatsDto> {
    return this.deliveries.stats(req.portalUser!.institutionId);
  }
}
