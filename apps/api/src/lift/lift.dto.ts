import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { PaginationDto } from '../common/pagination';

export class LiftPeriodDto {
  @ApiProperty({
    example: 0.042,
    nullable: true,
    type: Number,
    description: 'Buyers / cardholders in the 90 days before the window',
  })
  purchase_rate: number | null;
  @ApiProperty({
    example: 3.1,
    nullable: true,
    type: Number,
    description: 'Net spend at the merchant per cardholder in the 90 days before the window',
  })
  spend_per_cardholder: number | null;
}

export class LiftGroupDto {
  @ApiProperty({ example: 80000, description: 'Eligible cardholders in the group' })
  cardholders: number;
  @ApiProperty({
    example: 4000,
    description: 'Cardholders with net spend > 0 at the merchant in the window',
  })
  buyers: number;
  @ApiProperty({
    example: 0.05,
    nullable: true,
    type: Number,
    description: 'buyers / cardholders, 6 decimals; null for an empty group',
  })
  purchase_rate: number | null;
  @ApiProperty({
    example: 180000,
    description: 'Net spend at the merchant in the window (major units)',
  })
  spend: number;
  @ApiProperty({
    example: 2.25,
    nullable: true,
    type: Number,
    description: 'spend / cardholders; null for an empty group',
  })
  spend_per_cardholder: number | null;
  @ApiProperty({
    type: LiftPeriodDto,
    description:
      'The same in the pre-period: a gap between the groups here means they are not comparable',
  })
  pre_period: LiftPeriodDto;
}

export class LiftGroupsDto {
  @ApiProperty({
    type: LiftGroupDto,
    description: 'Every eligible cardholder not in the holdout (enrolled or not)',
  })
  exposed: LiftGroupDto;
  @ApiProperty({ type: LiftGroupDto, description: "The offer's holdout" })
  holdout: LiftGroupDto;
}

export class LiftIntervalDto {
  @ApiProperty({ example: 0.008, nullable: true, type: Number }) value: number | null;
  @ApiProperty({
    example: 0.0054,
    nullable: true,
    type: Number,
    description: 'Lower bound of the 95% interval',
  })
  ci_low: number | null;
  @ApiProperty({
    example: 0.0106,
    nullable: true,
    type: Number,
    description: 'Upper bound of the 95% interval',
  })
  ci_high: number | null;
}

export class LiftWindowDto {
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) from: string;
  @ApiProperty({ example: '2026-11-26T14:00:00.000Z' }) to: string;
}

export class LiftRewardsDto {
  @ApiProperty({ example: 9800.5 }) institution_payout: number;
  @ApiProperty({ example: 12000 }) merchant_funded: number;
}

export class LiftReportDto {
  @ApiProperty({ example: 'c5d8a1e2-0f3b-4c6d-9e7f-1a2b3c4d5e6f' }) offer_id: string;
  @ApiProperty({
    example: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b',
    nullable: true,
    type: String,
    description: 'null: every institution the offer is offered to (admin)',
  })
  institution_id: string | null;
  @ApiProperty({ example: 'USD', description: "The offer's currency: every amount is in it" })
  currency: string;
  @ApiProperty({
    example: '2026-11-26T14:00:00.000Z',
    description: 'When the figures were computed (a report may be reused for up to 60 s)',
  })
  as_of: string;
  @ApiProperty({ type: LiftWindowDto, description: '[starts_at, min(as_of, expires_at))' })
  window: LiftWindowDto;
  @ApiProperty({ type: LiftWindowDto, description: 'The 90 days before the window' })
  pre_period: LiftWindowDto;
  @ApiProperty({ example: 20 }) holdout_percent: number;
  @ApiProperty({ type: LiftGroupsDto }) groups: LiftGroupsDto;
  @ApiProperty({
    example: 0.19,
    nullable: true,
    type: Number,
    description:
      '(exposed rate − holdout rate) / holdout rate; null when the holdout rate is 0 or a group is empty',
  })
  lift: number | null;
  @ApiProperty({
    type: LiftIntervalDto,
    description:
      'Exposed minus holdout purchase rate, 95% Newcombe hybrid score interval (method 10)',
  })
  rate_difference: LiftIntervalDto;
  @ApiProperty({
    type: LiftIntervalDto,
    description:
      "Exposed minus holdout spend per cardholder, 95% Welch's t interval (Welch–Satterthwaite df)",
  })
  spend_difference: LiftIntervalDto;
  @ApiProperty({
    example: 38400,
    nullable: true,
    type: Number,
    description: '(exposed − holdout spend per cardholder) × exposed cardholders',
  })
  incremental_spend: number | null;
  @ApiProperty({
    type: LiftRewardsDto,
    description: "Rewards of the offer's redemptions created in the window, reversed ones excluded",
  })
  rewards_paid: LiftRewardsDto;
  @ApiProperty({
    example: 3.2,
    nullable: true,
    type: Number,
    description: 'incremental_spend / merchant-funded rewards; null without rewards',
  })
  return_on_spend: number | null;
  @ApiProperty({
    example: 'Intent to treat: … (docs/lift.md).',
    description: 'The method in one sentence',
  })
  method: string;
}

export class AdminLiftQuery {
  @ApiPropertyOptional({
    example: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b',
    description: "One institution's cardholders; absent: every institution the offer is offered to",
  })
  @IsOptional()
  @IsUUID()
  institution_id?: string;
}

export class PortalOfferDto {
  @ApiProperty({ example: 'c5d8a1e2-0f3b-4c6d-9e7f-1a2b3c4d5e6f' }) id: string;
  @ApiProperty({
    example: '10% back at Green Grocer',
    description: 'The English title, else another',
  })
  title: string;
  @ApiProperty({ example: 'Green Grocer' }) merchant_name: string;
  @ApiProperty({ example: 'active', enum: ['active', 'paused', 'ended'] }) status: string;
  @ApiProperty({ example: true, description: 'Active and inside its window now' }) live: boolean;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) starts_at: string;
  @ApiProperty({ example: '2027-01-31T23:59:59.000Z' }) expires_at: string;
  @ApiProperty({ example: 20, description: 'Share held out; 0: no holdout, so no lift to measure' })
  holdout_percent: number;
}

export class PortalOfferPageDto {
  @ApiProperty({ type: [PortalOfferDto] }) data: PortalOfferDto[];
  @ApiProperty() pagination: PaginationDto;
}

export class HoldoutKeyStateDto {
  @ApiProperty({
    example: true,
    description: 'Whether an admin has revealed the key (it can be revealed once)',
  })
  revealed: boolean;
  @ApiProperty({ example: '2026-11-26T14:00:00.000Z', nullable: true, type: String })
  revealed_at: string | null;
  @ApiProperty({ example: 'admin@bank.example', nullable: true, type: String })
  revealed_by: string | null;
}

export class HoldoutKeyDto {
  @ApiProperty({
    example: '17c014a6f522c98c611426226871e7491f43e9834f33048026292f5bc7daacfa',
    description: "The institution's holdout key K, 32 bytes in hex. Shown once: store it safely.",
  })
  key_hex: string;
  @ApiProperty({
    example:
      'u = uint64_be(first 8 bytes of HMAC-SHA256(K, offer_id ‖ cardholder_token)) mod 10000; held out when u < holdout_percent × 100',
  })
  rule: string;
  @ApiProperty({ example: '2026-11-26T14:00:00.000Z' }) revealed_at: string;
}
