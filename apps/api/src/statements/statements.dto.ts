import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID, Matches } from 'class-validator';
import {
  MOVEMENT_TYPES,
  STATEMENT_GRANULARITIES,
  STATEMENT_LINE_FIELDS,
  STATEMENT_STATUSES,
} from '@app/domain';
import { PageQuery, PaginationDto } from '../common/pagination';
import { IsCurrencyCode } from '../common/validators';

/** `YYYY-MM-DD`, a real calendar day (checked again by the service: 2026-02-30 is refused). */
const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DAY_MESSAGE = 'must be a date YYYY-MM-DD';

export class StatementsQuery extends PageQuery {
  @ApiProperty({ enum: STATEMENT_GRANULARITIES, example: 'day' })
  @IsIn(STATEMENT_GRANULARITIES)
  granularity: 'day' | 'month';

  @ApiPropertyOptional({
    example: '2026-11-01',
    description: "First day, inclusive, in the program's time zone (default: no lower bound)",
  })
  @IsOptional()
  @Matches(DAY, { message: DAY_MESSAGE })
  from?: string;

  @ApiPropertyOptional({
    example: '2026-11-30',
    description: 'Last day, inclusive; may be in the future (default: no upper bound)',
  })
  @IsOptional()
  @Matches(DAY, { message: DAY_MESSAGE })
  to?: string;

  @ApiPropertyOptional({ example: 'USD', description: 'Only this currency (default: all)' })
  @IsOptional()
  @IsCurrencyCode()
  currency?: string;
}

export class LinesQuery extends PageQuery {}

export class StatementDto {
  @ApiProperty({
    example: '3b1f7c52-9a0e-5d1b-8c4f-2e6a9d7b1c30',
    description:
      'UUIDv5 of (institution, currency, granularity, period_start): the same while open and once closed',
  })
  id: string;
  @ApiProperty({ enum: STATEMENT_GRANULARITIES, example: 'day' }) granularity: string;
  @ApiProperty({ example: '2026-11-25', description: 'First day, inclusive' })
  period_start: string;
  @ApiProperty({ example: '2026-11-25', description: 'Last day, inclusive' })
  period_end: string;
  @ApiProperty({
    example: 'America/Sao_Paulo',
    description: 'The time zone the period opened with',
  })
  time_zone: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ enum: STATEMENT_STATUSES, example: 'closed' }) status: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-26T03:05:00.000Z',
    description: 'null while open',
  })
  closed_at: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 (lowercase hex) of the lines file; null while open',
  })
  checksum: string | null;
  @ApiProperty({ example: 120.5, description: 'Pending payout when the period opened' })
  pending_opening: number;
  @ApiProperty({ example: 35, description: 'Payout of redemptions booked in the period' })
  earned: number;
  @ApiProperty({ example: 5, description: 'Payout of pending entries reversed in the period' })
  reversed: number;
  @ApiProperty({ example: 40, description: 'Payout of entries settled in the period' })
  settled: number;
  @ApiProperty({
    example: 110.5,
    description: 'pending_opening + earned − reversed − settled',
  })
  pending_closing: number;
  @ApiProperty({
    example: 2,
    description: 'Clawed back from settled entries reversed in the period',
  })
  clawed_back: number;
  @ApiProperty({ example: 38, description: 'settled − clawed_back: the amount payable' })
  net_payout: number;
  @ApiProperty({ example: 12 }) movement_count: number;
}

export class StatementPageDto {
  @ApiProperty({ type: [StatementDto] }) data: StatementDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export class StatementOfferDto {
  @ApiProperty({ example: 'c5d8a1e2-0f3b-4c6d-9e7f-1a2b3c4d5e6f' }) offer_id: string;
  @ApiProperty({ example: '$5 back at Green Grocer' }) title: string;
  @ApiProperty({ example: 35 }) earned: number;
  @ApiProperty({ example: 5 }) reversed: number;
  @ApiProperty({ example: 40 }) settled: number;
  @ApiProperty({ example: 2 }) clawed_back: number;
  @ApiProperty({ example: 9 }) movement_count: number;
}

export class StatementDetailDto extends StatementDto {
  @ApiProperty({ type: [StatementOfferDto], description: 'The figures per offer' })
  offers: StatementOfferDto[];
}

export class StatementLineDto {
  @ApiProperty({ example: '6a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d' }) movement_id: string;
  @ApiProperty({ enum: MOVEMENT_TYPES, example: 'earned' }) type: string;
  @ApiProperty({ example: '2026-11-25T14:03:07.412Z' }) booked_at: string;
  @ApiProperty({ example: '0b7f5c2e-9d41-4f8a-8a6e-2c3d4e5f6a7b' }) redemption_id: string;
  @ApiProperty({ example: 'c5d8a1e2-0f3b-4c6d-9e7f-1a2b3c4d5e6f' }) offer_id: string;
  @ApiProperty({ example: 'Green Grocer' }) merchant_name: string;
  @ApiProperty({ example: 'tx-2026-11-25-0001', description: "The rewarded purchase's reference" })
  transaction_ref: string;
  @ApiProperty({ example: 4.5, description: 'Positive; the type says the direction' })
  amount: number;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ enum: ['matching', 'claim'], example: 'matching' }) source: string;
}

export class StatementLinePageDto {
  @ApiProperty({ type: [StatementLineDto] }) data: StatementLineDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export const STATEMENT_CSV_EXAMPLE =
  STATEMENT_LINE_FIELDS.join(',') +
  '\r\n6a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d,earned,2026-11-25T14:03:07.412Z,0b7f5c2e-9d41-4f8a-8a6e-2c3d4e5f6a7b,c5d8a1e2-0f3b-4c6d-9e7f-1a2b3c4d5e6f,Green Grocer,tx-2026-11-25-0001,4.50,USD,matching\r\n';

export class CloseStatementsDto {
  @ApiProperty({
    example: '2026-11-25',
    description:
      "Close every open day up to and including this one, read in each institution's time zone (and every month whose last day it closes); not after an institution's current day",
  })
  @Matches(DAY, { message: DAY_MESSAGE })
  through: string;

  @ApiPropertyOptional({
    example: '8d3f0c1e-4a55-4c1b-9d2e-3f4a5b6c7d8e',
    description: 'One institution (default: all)',
  })
  @IsOptional()
  @IsUUID()
  institution_id?: string;
}

export class CloseStatementsResultDto {
  @ApiProperty({
    example: 3,
    description: 'Statements (institution, currency, granularity, period) closed by this call',
  })
  closed: number;
}

export class MerchantStatementsQuery {
  @ApiProperty({ enum: STATEMENT_GRANULARITIES, example: 'month' })
  @IsIn(STATEMENT_GRANULARITIES)
  granularity: 'day' | 'month';

  @ApiPropertyOptional({ example: '2026-11-01', description: 'First UTC day, inclusive' })
  @IsOptional()
  @Matches(DAY, { message: DAY_MESSAGE })
  from?: string;

  @ApiPropertyOptional({ example: '2026-11-30', description: 'Last UTC day, inclusive' })
  @IsOptional()
  @Matches(DAY, { message: DAY_MESSAGE })
  to?: string;
}

export class MerchantStatementDto {
  @ApiProperty({ enum: STATEMENT_GRANULARITIES, example: 'month' }) granularity: string;
  @ApiProperty({ example: '2026-11-01' }) period_start: string;
  @ApiProperty({ example: '2026-11-30' }) period_end: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: 600, description: 'What the merchant funded for rewards booked' })
  merchant_funded_earned: number;
  @ApiProperty({
    example: 60,
    description: 'Credited back for every reversal, pending or after settlement',
  })
  merchant_funded_reversed: number;
  @ApiProperty({ example: 54, description: "The service's revenue, net of reversals" })
  service_revenue: number;
  @ApiProperty({ example: 486, description: "The institutions' payout, net of reversals" })
  institution_payout: number;
  @ApiProperty({
    example: 540,
    description:
      'merchant_funded_earned − merchant_funded_reversed (= service_revenue + institution_payout)',
  })
  net_invoiced: number;
  @ApiProperty({ example: 110 }) movement_count: number;
}

export class MerchantStatementListDto {
  @ApiProperty({ type: [MerchantStatementDto] }) data: MerchantStatementDto[];
}
