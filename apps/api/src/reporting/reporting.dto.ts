import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { SETTLEMENT_STATUSES } from '@app/domain';
import { PageQuery, PaginationDto } from '../common/pagination';
import { IsTimestamp } from '../common/validators';

export class WindowQuery {
  @ApiPropertyOptional({
    example: '2026-11-01T00:00:00Z',
    description: 'Inclusive start (ISO 8601)',
  })
  @IsOptional()
  @IsTimestamp()
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'Exclusive end (ISO 8601)' })
  @IsOptional()
  @IsTimestamp()
  to?: string;
}

export class RedemptionsQuery extends IntersectionType(PageQuery, WindowQuery) {}

export class SettlementsQuery extends RedemptionsQuery {
  @ApiPropertyOptional({ enum: SETTLEMENT_STATUSES, example: 'pending' })
  @IsOptional()
  @IsIn(SETTLEMENT_STATUSES)
  status?: string;
}

export class RedemptionOfferDto {
  @ApiProperty({ example: 'c5d8a1e2-0f3b-4c6d-9e7f-1a2b3c4d5e6f' }) id: string;
  @ApiProperty({ example: '$5 back at Green Grocer', description: "In the program's first locale" })
  title: string;
  @ApiProperty({ example: 'Green Grocer' }) merchant_name: string;
}

export class RedemptionItemDto {
  @ApiProperty({ example: '0b7f5c2e-9d41-4f8a-8a6e-2c3d4e5f6a7b' }) id: string;
  @ApiProperty({ example: '2026-11-21T10:15:30.123Z' }) created_at: string;
  @ApiProperty({ enum: SETTLEMENT_STATUSES, example: 'pending' }) status: string;
  @ApiProperty({ example: 'USD', description: 'ISO 4217 currency of every amount of the item' })
  currency: string;
  @ApiProperty({ example: 6, description: 'Cashback plus the merchant fee' })
  merchant_funded_amount: number;
  @ApiProperty({ example: 5.5, description: 'What the institution is paid for this redemption' })
  institution_payout_amount: number;
  @ApiProperty({ example: 5, description: 'What the cardholder is owed (the offer’s reward)' })
  cashback_amount: number;
  @ApiProperty({ type: RedemptionOfferDto }) offer: RedemptionOfferDto;
  @ApiProperty({ example: 'chk_****9f3a' }) cardholder_token_masked: string;
  @ApiProperty({
    example: 'pos-20261121-0042',
    description:
      "The rewarded record's transaction_ref, stored with the redemption: the purchase's; for a card chain the clearing's once it holds the reward, the authorization's before (additive)",
  })
  transaction_ref: string;
  @ApiProperty({
    example: 45,
    description:
      "What the reward was computed on, in major units: the purchase's amount net of the refunds stored before it; for a goal offer, the round's counted spend (additive)",
  })
  purchase_amount: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    example: null,
    description:
      'The goal round a goal offer’s redemption rewards; null for a single purchase (additive)',
  })
  goal_round: number | null;
}

export class RedemptionPageDto {
  @ApiProperty({ type: [RedemptionItemDto] }) data: RedemptionItemDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export class SettlementEntryDto {
  @ApiProperty({ example: 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b' }) id: string;
  @ApiProperty({ example: '0b7f5c2e-9d41-4f8a-8a6e-2c3d4e5f6a7b' }) redemption_id: string;
  @ApiProperty({ example: 'c5d8a1e2-0f3b-4c6d-9e7f-1a2b3c4d5e6f' }) offer_id: string;
  @ApiProperty({ example: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b' }) merchant_id: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: 6, description: 'Cashback plus the merchant fee' })
  merchant_funded_amount: number;
  @ApiProperty({ example: 0.5, description: "The service's take" }) service_revenue_amount: number;
  @ApiProperty({ example: 5.5 }) institution_payout_amount: number;
  @ApiProperty({ enum: SETTLEMENT_STATUSES, example: 'settled' }) status: string;
  @ApiProperty({ example: '2026-11-21T10:15:30.123Z' }) created_at: string;
  @ApiProperty({ example: '2026-12-21T00:00:00.000Z', nullable: true, type: String }) settled_at:
    string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) reversed_at: string | null;
  @ApiProperty({
    example: 'pos-20261121-0042',
    description:
      "The rewarded record's transaction_ref, stored with the redemption: the purchase's; for a card chain the clearing's once it holds the reward, the authorization's before (additive)",
  })
  transaction_ref: string;
  @ApiProperty({
    example: 45,
    description:
      "What the reward was computed on, in major units: the purchase's amount net of the refunds stored before it; for a goal offer, the round's counted spend (additive)",
  })
  purchase_amount: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    example: null,
    description:
      'The goal round a goal offer’s redemption rewards; null for a single purchase (additive)',
  })
  goal_round: number | null;
}

export class SettlementPageDto {
  @ApiProperty({ type: [SettlementEntryDto] }) data: SettlementEntryDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export class FunnelWindowDto {
  @ApiProperty({ example: '2026-10-22T10:00:00.000Z' }) from: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) to: string;
}

export class FunnelDataDto {
  @ApiProperty({ example: 1200, description: 'Feed calls' }) widget_views: number;
  @ApiProperty({ example: 310, description: 'Distinct cardholders with a feed call' })
  unique_cardholders: number;
  @ApiProperty({ example: 9600, description: 'Offers returned by feed calls' })
  offer_impressions: number;
  @ApiProperty({ example: 420, description: 'Enrollments with status added' })
  offer_add_successes: number;
  @ApiProperty({ example: 95, description: 'Redemptions created' }) redemptions: number;
}

export class FunnelDto {
  @ApiProperty({ type: FunnelWindowDto }) window: FunnelWindowDto;
  @ApiProperty({ type: FunnelDataDto }) data: FunnelDataDto;
}
