import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, Length, Matches } from 'class-validator';
import { ERASURE_STATUSES } from '@app/domain';

const T = '2026-11-21T10:00:00.000Z';
const UUID = '6f1c2b7e-3d4a-4e5f-9a8b-7c6d5e4f3a2b';
/** No control characters: the same rule as every cardholder token the API takes. */
export const TOKEN = /^[^\u0000-\u001f\u007f]+$/;

export class ErasureRequestDto {
  @ApiProperty({
    example: 'chk_7f3a9c2e41b84d0f9a6e',
    description: 'The institution’s token of the cardholder to erase (1–256 characters)',
  })
  @IsDefined({ message: 'cardholder_token is required' })
  @IsString()
  @Length(1, 256)
  @Matches(TOKEN, { message: 'cardholder_token must not contain control characters' })
  cardholder_token: string;
}

export class ErasureAcceptedDto {
  @ApiProperty({
    example: UUID,
    description: 'The erasure: read it at /api/v1/cardholders/erasure/{id}',
  })
  id: string;
  @ApiProperty({ enum: ERASURE_STATUSES, example: 'pending' })
  status: string;
}

export class ErasedCountsDto {
  @ApiProperty({ example: 2, description: 'Enrollments (offers added)' }) enrollments: number;
  @ApiProperty({ example: 14, description: 'Stored transactions, with their card tokens' })
  transactions: number;
  @ApiProperty({ example: 3 }) redemptions: number;
  @ApiProperty({ example: 41, description: 'Widget and feed events of the funnel' })
  engagement_events: number;
  @ApiProperty({ example: 6, description: 'Stored webhook bodies (and their attempts)' })
  webhook_deliveries: number;
  @ApiProperty({ example: 1, description: 'Enrollments in goal offers, whose progress is kept' })
  goal_progress: number;
  @ApiProperty({ example: 0 }) claims: number;
  @ApiProperty({
    example: 0,
    description:
      'Cardholder sessions are sealed, never stored: always 0 (one minted before the erasure works until it expires, at most an hour, and then finds nothing)',
  })
  sessions: number;
}

export class ErasureDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({
    enum: ERASURE_STATUSES,
    example: 'completed',
    description:
      '`pending` until the worker has replaced the token everywhere; it stays pending while a webhook delivery for the cardholder is pending (at most 14 days), and while the institution is under legal hold',
  })
  status: string;
  @ApiProperty({ example: T }) requested_at: string;
  @ApiProperty({ example: '2026-11-21T10:00:02.000Z', nullable: true, type: String })
  completed_at: string | null;
  @ApiProperty({ type: ErasedCountsDto, description: 'What was erased (all 0 while pending)' })
  erased: ErasedCountsDto;
}

// ---------------------------------------------------------------- right of access

class ExportGoalDto {
  @ApiProperty({ example: 1 }) round: number;
  @ApiProperty({ example: 2, description: 'Purchases, or minor units of spend, in the open round' })
  progress: number;
  @ApiProperty({ example: 4500, description: 'Counted spend of the open round, minor units' })
  spend: number;
}

export class ExportEnrollmentDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: UUID }) offer_id: string;
  @ApiProperty({ example: 'active' }) status: string;
  @ApiProperty({ example: 'card_tok_9d8c7b6a', nullable: true, type: String }) card_token:
    string | null;
  @ApiProperty({ example: 1 }) redemption_count: number;
  @ApiProperty({ example: T }) added_at: string;
  @ApiProperty({ type: ExportGoalDto, nullable: true, description: 'Goal offers only' })
  goal: ExportGoalDto | null;
}

export class ExportTransactionDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: 'txn_20261121_000184' }) transaction_ref: string;
  @ApiProperty({ example: 'purchase' }) transaction_type: string;
  @ApiProperty({ example: 'card_tok_9d8c7b6a', nullable: true, type: String }) card_token:
    string | null;
  @ApiProperty({ example: 'card', nullable: true, type: String }) instrument_type: string | null;
  @ApiProperty({ example: UUID, nullable: true, type: String }) merchant_id: string | null;
  @ApiProperty({ example: 'CA-000123', nullable: true, type: String }) merchant_identifier:
    string | null;
  @ApiProperty({ example: 'card_acceptor', nullable: true, type: String })
  merchant_identifier_type: string | null;
  @ApiProperty({ example: 'GREEN GROCER 12', nullable: true, type: String })
  merchant_descriptor: string | null;
  @ApiProperty({ example: '5411', nullable: true, type: String }) mcc: string | null;
  @ApiProperty({ example: 'visa', nullable: true, type: String }) network: string | null;
  @ApiProperty({ example: 'in_store', nullable: true, type: String }) channel: string | null;
  @ApiProperty({ example: '25.5', description: 'As sent, in major units (a decimal string)' })
  amount: string;
  @ApiProperty({ example: 'USD', nullable: true, type: String }) currency: string | null;
  @ApiProperty({ example: T }) transacted_at: string;
  @ApiProperty({ example: T }) received_at: string;
  @ApiProperty({ example: 'matched' }) status: string;
  @ApiProperty({ example: null, nullable: true, type: String }) original_transaction_ref:
    string | null;
  @ApiProperty({ example: 'api', description: 'api, batch or csv' }) source: string;
  @ApiProperty({ example: false, description: 'A past purchase stored for audiences only' })
  history: boolean;
}

export class ExportRedemptionDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: UUID }) offer_id: string;
  @ApiProperty({ example: UUID }) transaction_id: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: 25.5 }) purchase_amount: number;
  @ApiProperty({ example: 5 }) cashback_amount: number;
  @ApiProperty({ example: 5 }) institution_payout_amount: number;
  @ApiProperty({ example: 'settled' }) status: string;
  @ApiProperty({ example: T }) created_at: string;
  @ApiProperty({ example: T, nullable: true, type: String }) settled_at: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) reversed_at: string | null;
}

export class ExportEngagementEventDto {
  @ApiProperty({ example: 'impression' }) kind: string;
  @ApiProperty({ example: UUID, nullable: true, type: String }) offer_id: string | null;
  @ApiProperty({ example: T }) occurred_at: string;
}

export class ExportWebhookDeliveryDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: 'redemption.completed' }) event: string;
  @ApiProperty({ example: 'delivered' }) status: string;
  @ApiProperty({ example: T }) created_at: string;
  @ApiProperty({ example: T, nullable: true, type: String }) delivered_at: string | null;
  @ApiProperty({
    description: 'The stored body, as sent (with the full cardholder token)',
    example: {
      event: 'redemption.completed',
      redemption_id: UUID,
      cardholder_token: 'chk_7f3a9c2e41b84d0f9a6e',
      cardholder_token_masked: 'chk_****9a6e',
      institution_payout_amount: 5,
    },
  })
  payload: Record<string, unknown>;
}

export class CardholderExportDto {
  @ApiProperty({ example: 'chk_7f3a9c2e41b84d0f9a6e' }) cardholder_token: string;
  @ApiProperty({ example: T, description: 'When this answer was read' }) generated_at: string;
  @ApiProperty({ type: [ExportEnrollmentDto] }) enrollments: ExportEnrollmentDto[];
  @ApiProperty({ type: [ExportTransactionDto] }) transactions: ExportTransactionDto[];
  @ApiProperty({ type: [ExportRedemptionDto] }) redemptions: ExportRedemptionDto[];
  @ApiProperty({ type: [ExportEngagementEventDto] }) engagement_events: ExportEngagementEventDto[];
  @ApiProperty({ type: [ExportWebhookDeliveryDto] }) webhook_deliveries: ExportWebhookDeliveryDto[];
}
