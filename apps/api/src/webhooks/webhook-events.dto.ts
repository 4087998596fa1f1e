import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString } from 'class-validator';
import { REVERSAL_REASONS, SELECTABLE_EVENT_TYPES, STATEMENT_GRANULARITIES } from '@app/domain';

/**
 * The bodies of the webhook events, as JSON Schemas in the OpenAPI document (components; the
 * generator writes OpenAPI 3.0, which has no `webhooks` section). docs/webhooks.md shows the same.
 */
class RedemptionEventFields {
  @ApiProperty({ format: 'uuid', example: '9b1d3c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e' })
  redemption_id: string;
  @ApiProperty({ format: 'uuid', example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' })
  institution_id: string;
  @ApiProperty({ format: 'uuid', example: '0e4c2b1a-7d6f-4e5a-9b8c-1d2e3f4a5b6c' })
  offer_id: string;
  @ApiProperty({
    example: 'chk_8f14e45fceea167a5a36dedd4bea2543',
    description: "The institution's own full cardholder token, as sent with the purchase",
  })
  cardholder_token: string;
  @ApiProperty({ example: 'chk_****2543', description: 'First 4 + **** + last 4' })
  cardholder_token_masked: string;
  @ApiProperty({ example: 4.5, description: "Major units of the offer's currency" })
  institution_payout_amount: number;
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-21T10:00:00.123Z',
    description: 'ISO 8601 with milliseconds, UTC',
  })
  occurred_at: string;
  @ApiProperty({
    example: 'pos-20261121-0042',
    description:
      "The rewarded record's transaction_ref: the purchase's; for a card chain the clearing's once it holds the reward, the authorization's before (additive)",
  })
  transaction_ref: string;
  @ApiProperty({
    example: 45,
    description:
      "What the reward was computed on, in major units: the purchase's amount net of the refunds stored before it; for a goal offer, the round's counted spend (additive)",
  })
  purchase_amount: number;
  @ApiProperty({
    example: 5,
    description:
      'What the merchant funds: the cashback plus the fee (major units; additive). The institution payout is part of it',
  })
  merchant_funded_amount: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    example: null,
    description:
      'The goal round a goal offer’s redemption rewards; null for a single purchase (additive)',
  })
  goal_round: number | null;
  @ApiProperty({
    example: 'USD',
    description: 'ISO 4217 code of every amount of the event (additive)',
  })
  currency: string;
}

export class RedemptionCompletedEventDto extends RedemptionEventFields {
  @ApiProperty({ enum: ['redemption.completed'], example: 'redemption.completed' })
  event: 'redemption.completed';
}

export class RedemptionReversedEventDto extends RedemptionEventFields {
  @ApiProperty({ enum: ['redemption.reversed'], example: 'redemption.reversed' })
  event: 'redemption.reversed';
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 12,
    description: 'What the merchant claws back (major units); null when not computed',
  })
  clawback_amount: number | null;
  @ApiProperty({
    enum: REVERSAL_REASONS,
    example: 'refund',
    description:
      'Why: a refund, a void of the authorization, the authorization expired, a clearing that no longer earns the reward, a refund that took a goal round below its target (additive)',
  })
  reversal_reason: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'pos-20261121-0042-r1',
    description:
      'The transaction_ref of the record that caused the reversal (the refund, the void, the clearing); null for an expiry (additive)',
  })
  reversal_transaction_ref: string | null;
}

export class RedemptionSettledEventDto extends RedemptionEventFields {
  @ApiProperty({ enum: ['redemption.settled'], example: 'redemption.settled' })
  event: 'redemption.settled';
}

/** A statement closed (docs/statements.md): figures in major units of `currency`. */
export class StatementClosedEventDto {
  @ApiProperty({ enum: ['statement.closed'], example: 'statement.closed' })
  event: 'statement.closed';
  @ApiProperty({
    format: 'uuid',
    example: '3b1f7c52-9a0e-5d1b-8c4f-2e6a9d7b1c30',
    description: 'The statement (GET /api/v1/statements/{id})',
  })
  statement_id: string;
  @ApiProperty({ format: 'uuid', example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' })
  institution_id: string;
  @ApiProperty({ enum: STATEMENT_GRANULARITIES, example: 'day' }) granularity: string;
  @ApiProperty({ example: '2026-11-25', description: 'First day, inclusive (YYYY-MM-DD)' })
  period_start: string;
  @ApiProperty({ example: '2026-11-25', description: 'Last day, inclusive (YYYY-MM-DD)' })
  period_end: string;
  @ApiProperty({
    example: 'America/Sao_Paulo',
    description: 'The time zone the period opened with',
  })
  time_zone: string;
  @ApiProperty({ example: 'USD', description: 'ISO 4217 code of every amount of the event' })
  currency: string;
  @ApiProperty({
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description:
      'SHA-256 (lowercase hex) of the lines file, the bytes GET {lines_path} serves as CSV',
  })
  checksum: string;
  @ApiProperty({ example: 120.5, description: 'Pending payout when the period opened' })
  pending_opening: number;
  @ApiProperty({ example: 35, description: 'Payout of redemptions booked in the period' })
  earned: number;
  @ApiProperty({ example: 5, description: 'Payout of pending entries reversed in the period' })
  reversed: number;
  @ApiProperty({ example: 40, description: 'Payout of entries settled in the period' })
  settled: number;
  @ApiProperty({ example: 110.5, description: 'pending_opening + earned − reversed − settled' })
  pending_closing: number;
  @ApiProperty({
    example: 2,
    description: 'Clawed back from settled entries reversed in the period',
  })
  clawed_back: number;
  @ApiProperty({ example: 38, description: 'settled − clawed_back: the amount payable' })
  net_payout: number;
  @ApiProperty({ type: 'integer', minimum: 0, example: 12 }) movement_count: number;
  @ApiProperty({
    example: '/api/v1/statements/3b1f7c52-9a0e-5d1b-8c4f-2e6a9d7b1c30/lines',
    description:
      'Where the lines are: JSON pages, or the file with Accept: text/csv (scope reporting)',
  })
  lines_path: string;
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-26T03:05:00.000Z',
    description: 'When the statement closed (its closed_at), ISO 8601 with milliseconds, UTC',
  })
  occurred_at: string;
}

export class WebhookTestEventDto {
  @ApiProperty({ enum: ['webhook.test'], example: 'webhook.test' }) event: 'webhook.test';
  @ApiProperty({ format: 'uuid', example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' })
  institution_id: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:00:00.123Z' })
  occurred_at: string;
  @ApiProperty({ example: 'A test event sent from the portal. Nothing to credit.' })
  message: string;
}

export class ClaimResolvedEventDto {
  @ApiProperty({ enum: ['claim.resolved'], example: 'claim.resolved' }) event: 'claim.resolved';
  @ApiProperty({ format: 'uuid', example: '7c2e9a14-3b5d-4f6e-8a1b-2c3d4e5f6a7b' })
  claim_id: string;
  @ApiProperty({ format: 'uuid', example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' })
  institution_id: string;
  @ApiProperty({ format: 'uuid', example: '0e4c2b1a-7d6f-4e5a-9b8c-1d2e3f4a5b6c' })
  offer_id: string;
  @ApiProperty({ example: 'txn-2026-11-21-000123' }) transaction_ref: string;
  @ApiProperty({
    enum: ['approved', 'rewarded_other_offer', 'already_rewarded', 'rejected'],
    example: 'approved',
    description: "The claim's status after the operator's decision",
  })
  status: string;
  @ApiProperty({ type: [String], example: [], description: 'Why it was rejected (codes)' })
  reasons: string[];
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '9b1d3c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
  })
  redemption_id: string | null;
  @ApiProperty({ example: 'chk_****2543', description: 'First 4 + **** + last 4' })
  cardholder_token_masked: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:00:00.123Z' })
  occurred_at: string;
}

export const WEBHOOK_EVENT_MODELS = [
  RedemptionCompletedEventDto,
  RedemptionReversedEventDto,
  RedemptionSettledEventDto,
  StatementClosedEventDto,
  WebhookTestEventDto,
  ClaimResolvedEventDto,
];

export class UpdateEventTypesDto {
  @ApiProperty({
    isArray: true,
    enum: SELECTABLE_EVENT_TYPES,
    example: ['redemption.completed', 'redemption.reversed', 'redemption.settled'],
    description:
      'The event types to receive. `redemption.completed` must stay while a URL is set; `statement.closed` is off until chosen; `webhook.test` is sent on request only.',
  })
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  event_types: string[];
}
