import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  DELIVERY_STATUSES,
  REPLAY_STATUSES,
  SELECTABLE_EVENT_TYPES,
  WEBHOOK_ERROR_CLASSES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_URL_MAX_LENGTH,
} from '@app/domain';
import { PageQuery, PaginationDto } from '../common/pagination';
import { IsTimestamp } from '../common/validators';

const UUID = '3f0c6f1e-8a51-4c1a-9d7b-2f1e0c9a7b11';

export class WebhookSettingsDto {
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://hooks.demo-bank.example/offers',
    description: 'null when not configured: deliveries are then `skipped`',
  })
  url: string | null;

  @ApiProperty({
    example: true,
    description: 'Whether a signing secret exists (its value is shown only once, at rotation)',
  })
  secret_set: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-22T10:00:00.000Z',
    description:
      'While a rotation overlap lasts: until when the previous secret also signs (a second `webhook-signature`); else null',
  })
  previous_secret_expires_at: string | null;

  @ApiProperty({
    isArray: true,
    enum: SELECTABLE_EVENT_TYPES,
    example: ['redemption.completed', 'redemption.reversed', 'redemption.settled'],
    description: 'The event types delivered (`webhook.test` is sent on request only)',
  })
  event_types: string[];

  @ApiProperty({
    type: [String],
    example: ['X-Api-Key'],
    description: 'Names of the custom headers sent with every attempt (values are never shown)',
  })
  custom_headers: string[];

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 50,
    description: 'Cap on attempts per second to this URL; null: no cap',
  })
  max_per_second: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      'Set when deliveries were paused because every attempt failed for WEBHOOK_DISABLE_AFTER_DAYS; resume with POST …/resume',
  })
  paused_at: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'First failed attempt since the last success (null while attempts succeed)',
  })
  failing_since: string | null;

  @ApiProperty({
    type: () => ClientCertificateDto,
    nullable: true,
    description: 'The mutual TLS client certificate presented to the URL, if any',
  })
  client_certificate: ClientCertificateDto | null;
}

export class ClientCertificateDto {
  @ApiProperty({ example: 'CN=offers-webhooks, O=Demo Bank' }) subject: string;
  @ApiProperty({ example: '2027-11-21T00:00:00.000Z' }) expires_at: string;
}

export class UploadClientCertificateDto {
  @ApiProperty({
    example: '-----BEGIN CERTIFICATE-----\nMIIB…\n-----END CERTIFICATE-----\n',
    description: 'The client certificate, PEM',
  })
  @IsString()
  @MaxLength(16_384)
  certificate: string;

  @ApiProperty({
    example: '-----BEGIN PRIVATE KEY-----\nMIIE…\n-----END PRIVATE KEY-----\n',
    description: 'Its private key, PEM, without a passphrase; stored encrypted, never shown again',
  })
  @IsString()
  @MaxLength(16_384)
  private_key: string;
}

export class CustomHeaderDto {
  @ApiProperty({ example: 'X-Api-Key' })
  @IsString()
  @MaxLength(64)
  name: string;

  @ApiProperty({
    example: 'gw-4f1c2b',
    description: 'Stored encrypted; never shown again or logged',
  })
  @IsString()
  @MaxLength(1000)
  value: string;
}

export class UpdateCustomHeadersDto {
  @ApiProperty({
    type: [CustomHeaderDto],
    description: 'Replaces every custom header; at most 5; [] removes them',
  })
  @IsArray()
  @ArrayMaxSize(5)
  @ValidateNested({ each: true })
  @Type(() => CustomHeaderDto)
  headers: CustomHeaderDto[];
}

export class UpdateRateCapDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 50,
    description: 'Attempts per second to this URL, 1 to 1000; null removes the cap',
  })
  @ValidateIf((o: UpdateRateCapDto) => o.max_per_second !== null)
  @IsInt()
  @Min(1)
  @Max(1000)
  max_per_second: number | null;
}

export class ResumedDto extends WebhookSettingsDto {
  @ApiProperty({ example: 42, description: 'Pending deliveries queued again, oldest first' })
  resumed: number;
}

/** Seconds the previous secret keeps signing after a rotation: 24 h by default, at most 7 days. */
export const SECRET_OVERLAP_DEFAULT_SECONDS = 86_400;
export const SECRET_OVERLAP_MAX_SECONDS = 7 * 86_400;

export class RotateSecretDto {
  @ApiPropertyOptional({
    example: 86400,
    minimum: 0,
    maximum: SECRET_OVERLAP_MAX_SECONDS,
    default: SECRET_OVERLAP_DEFAULT_SECONDS,
    description:
      'How long the previous secret keeps signing too (Standard Webhooks headers carry both signatures): default 86400 (24 h), at most 604800 (7 days); 0 expires it now',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(SECRET_OVERLAP_MAX_SECONDS)
  overlap_seconds?: number;
}

export class UpdateWebhookDto {
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://hooks.demo-bank.example/offers',
    description:
      'An https URL without credentials whose host resolves only to public addresses; null removes it',
  })
  @ValidateIf((o: UpdateWebhookDto) => o.url !== null)
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url: string | null;
}

export class SigningSecretDto {
  @ApiProperty({
    example: 'whsec_kL3J0aW5nLXNlY3JldC1leGFtcGxlLTMyLWJ5dGVzISE=',
    description:
      'The new signing secret: shown in this response only. Every attempt from now on is signed with it.',
  })
  signing_secret: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-22T10:00:00.000Z',
    description:
      'Until when the previous secret also signs (Standard Webhooks headers only); null when there was none or the overlap is 0',
  })
  previous_secret_expires_at: string | null;
}

export class DeliveryListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, example: 'failed' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: (typeof DELIVERY_STATUSES)[number];

  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_TYPES, example: 'redemption.completed' })
  @IsOptional()
  @IsIn(WEBHOOK_EVENT_TYPES)
  event?: string;

  @ApiPropertyOptional({ example: UUID, description: 'A delivery id (X-Service-Delivery-Id)' })
  @IsOptional()
  @IsUUID()
  id?: string;

  @ApiPropertyOptional({ example: '9b1d3c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e' })
  @IsOptional()
  @IsUUID()
  redemption_id?: string;

  @ApiPropertyOptional({ example: '0e4c2b1a-7d6f-4e5a-9b8c-1d2e3f4a5b6c' })
  @IsOptional()
  @IsUUID()
  offer_id?: string;

  @ApiPropertyOptional({
    example: '2026-11-20T00:00:00Z',
    description: 'Created at or after (ISO 8601)',
  })
  @IsOptional()
  @IsTimestamp()
  from?: string;

  @ApiPropertyOptional({
    example: '2026-11-21T00:00:00Z',
    description: 'Created before (ISO 8601)',
  })
  @IsOptional()
  @IsTimestamp()
  to?: string;
}

export class WebhookDeliveryDto {
  @ApiProperty({
    example: UUID,
    description: 'Also sent as X-Service-Delivery-Id on every attempt and redelivery',
  })
  id: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, example: 'redemption.completed' })
  event: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'delivered' }) status: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      'Why it is skipped or failed: no_webhook_url, no_signing_secret, signing_secret_unreadable, gone (410), attempts_exhausted, manual_attempt_failed',
  })
  status_reason: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '9b1d3c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
    description: 'null for a webhook.test event',
  })
  redemption_id: string | null;
  @ApiProperty({ example: 1, description: 'Attempts made so far, automatic and manual' })
  attempt_count: number;
  @ApiProperty({ example: 0, description: 'Manual redeliveries requested' })
  redelivery_count: number;
  @ApiProperty({ example: '2026-11-21T10:00:00.123Z' }) created_at: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-21T10:00:00.140Z' })
  last_attempt_at: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'When the next automatic attempt is due (pending only)',
  })
  next_attempt_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-21T10:00:00.162Z' }) delivered_at:
    string | null;
}

export class WebhookAttemptDto {
  @ApiProperty({ example: 1 }) attempt_number: number;
  @ApiProperty({ enum: ['automatic', 'manual'], example: 'automatic' }) trigger: string;
  @ApiProperty({ type: String, nullable: true, example: 'https://hooks.demo-bank.example/offers' })
  url: string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.140Z' }) started_at: string;
  @ApiProperty({ example: 22 }) duration_ms: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    example: {
      'X-Service-Signature-V2': 'sha256=7c4a8d09…',
      'X-Service-Timestamp': '1795300000',
      'webhook-signature': 'v1,K5oZfzN9…',
    },
    description:
      'The headers sent, signatures shortened to 8 characters; null for an attempt interrupted by a worker stop',
  })
  request_headers: Record<string, string> | null;
  @ApiProperty({ type: Number, nullable: true, example: 200 }) http_status: number | null;
  @ApiProperty({ enum: WEBHOOK_ERROR_CLASSES, nullable: true, example: null }) error_class:
    string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) error_message: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '{"received":true}',
    description: 'First 4 KiB of the response body',
  })
  response_excerpt: string | null;
}

export class WebhookDeliveryDetailDto extends WebhookDeliveryDto {
  @ApiProperty({
    description:
      'The payload as sent, without the full cardholder token (schemas: RedemptionCompletedEventDto, RedemptionReversedEventDto, RedemptionSettledEventDto, WebhookTestEventDto)',
    example: {
      event: 'redemption.completed',
      redemption_id: '9b1d3c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
      institution_id: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11',
      offer_id: '0e4c2b1a-7d6f-4e5a-9b8c-1d2e3f4a5b6c',
      cardholder_token: 'chk_8f14e45fceea167a5a36dedd4bea2543',
      cardholder_token_masked: 'chk_****2543',
      institution_payout_amount: 4.5,
      occurred_at: '2026-11-21T10:00:00.123Z',
    },
  })
  payload: Record<string, unknown>;

  @ApiProperty({ type: [WebhookAttemptDto] }) attempts: WebhookAttemptDto[];
}

export class WebhookDeliveryPageDto {
  @ApiProperty({ type: [WebhookDeliveryDto] }) data: WebhookDeliveryDto[];
  @ApiProperty() pagination: PaginationDto;
}

export class RedeliveryAcceptedDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: 'pending' }) status: string;
  @ApiProperty({
    example: 1,
    description: 'The redelivery number (redelivery_count after this request)',
  })
  redelivery: number;
}

export class TestEventAcceptedDto {
  @ApiProperty({
    example: UUID,
    description: 'The test delivery: follow its attempt with GET …/deliveries/{id}',
  })
  id: string;
  @ApiProperty({ example: 'webhook.test' }) event: string;
  @ApiProperty({ example: 'pending' }) status: string;
}

export class StartReplayDto {
  @ApiProperty({
    example: '2026-11-21T08:00:00Z',
    description: 'Replay the failed deliveries created at or after this time',
  })
  @IsTimestamp()
  since: string;

  @ApiPropertyOptional({
    example: '2026-11-21T12:00:00Z',
    description: 'and before this time (default now)',
  })
  @IsOptional()
  @IsTimestamp()
  until?: string;
}

export class WebhookReplayDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: '2026-11-21T08:00:00.000Z' }) since: string;
  @ApiProperty({ example: '2026-11-21T12:00:00.000Z' }) until: string;
  @ApiProperty({ enum: REPLAY_STATUSES, example: 'running' }) status: string;
  @ApiProperty({
    example: 120,
    description: 'Failed deliveries to replay (at most 10,000 per replay)',
  })
  total: number;
  @ApiProperty({ example: 40, description: 'Redelivered so far' }) done: number;
  @ApiProperty({ example: 'ana@bank.example' }) requested_by: string;
  @ApiProperty({ example: '2026-11-21T12:00:00.000Z' }) created_at: string;
  @ApiProperty({ type: String, nullable: true, example: null }) finished_at: string | null;
}

export class WebhookReplayListDto {
  @ApiProperty({ type: [WebhookReplayDto] }) data: WebhookReplayDto[];
}

export class HourlyOutcomeDto {
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) hour: string;
  @ApiProperty({ example: 120 }) delivered: number;
  @ApiProperty({ example: 2 }) failed: number;
}

export class WebhookStatsDto {
  @ApiProperty({
    type: [HourlyOutcomeDto],
    description:
      'Deliveries delivered and failed per hour of their last attempt, last 7 days (hours without any are left out)',
  })
  hours: HourlyOutcomeDto[];
}
