import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';

import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  Min,
  registerDecorator,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import {
  GOAL_TYPES,
  LOCALES,
  OFFER_STATUSES,
  OFFER_VERSION_STATUSES,
  REWARD_TYPES,
  WRITABLE_OFFER_STATUSES,
} from '@app/domain';
import { AuditActorDto } from '../audit/audit.dto';
import { SimulationResultDto, EvaluationDto } from '../transactions/transactions.dto';
import { PageQuery } from '../common/pagination';
import { QualificationDto } from '../common/qualification.dto';
import { IsAmount, IsCurrencyCode, IsTimestamp } from '../common/validators';

/** `{ "en": {title, description}, "es": {...} }`: keys are supported locales, at least one. */
function IsTranslations(options: ValidationOptions = {}) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isTranslations',
      target: object.constructor,
      propertyName,
      options: {
        message:
          'must map en, es or pt-BR to {title (1-200 chars), description (up to 2000 chars)}, at least one',
        ...options,
      },
      validator: {
        validate(v: unknown) {
          if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
          const entries = Object.entries(v as Record<string, unknown>);
          return (
            entries.length > 0 &&
            entries.every(([locale, t]) => {
              const tr = t as { title?: unknown; description?: unknown } | null;
              return (
                (LOCALES as readonly string[]).includes(locale) &&
                !!tr &&
                typeof tr === 'object' &&
                Object.keys(tr).every((k) => k === 'title' || k === 'description') &&
                typeof tr.title === 'string' &&
                tr.title.trim().length >= 1 &&
                tr.title.length <= 200 &&
                (tr.description === undefined ||
                  (typeof tr.description === 'string' && tr.description.length <= 2000))
              );
            })
          );
        },
      },
    });
}

/**
 * A goal offer's goal: the reward needs several qualifying purchases (purchase_count) or a spend
 * reached over several purchases (cumulative_spend, major units of the offer currency).
 */
export class GoalDto {
  @ApiProperty({
    enum: GOAL_TYPES,
    example: 'purchase_count',
    description:
      'purchase_count: the target-th qualifying purchase earns the reward; cumulative_spend: the purchase that takes the counted spend to the target does',
  })
  @IsIn(GOAL_TYPES)
  type: string;

  @ApiProperty({
    example: 3,
    description:
      'Purchases (an integer, 1-1000) for purchase_count; an amount in major units of the offer currency for cumulative_spend',
  })
  @IsAmount({ positive: true })
  target: number;
}

export class CreateOfferDto {
  @ApiProperty({ example: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b' })
  @IsUUID()
  merchant_id: string;

  @ApiPropertyOptional({
    type: [String],
    example: [],
    description: 'Institutions the offer is shown to; empty or absent = every institution',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @ArrayUnique()
  @IsUUID(undefined, { each: true })
  institution_ids?: string[];

  @ApiProperty({
    enum: WRITABLE_OFFER_STATUSES,
    example: 'active',
    description:
      'With OFFER_APPROVAL=required a named operator creates `draft` offers only (`409 approval_required` otherwise): submit, then an approver approves. `in_review` is set by submit only.',
  })
  @IsIn(WRITABLE_OFFER_STATUSES)
  status: string;

  @ApiProperty({
    example: {
      en: { title: '10% back at Green Grocer', description: 'Spend 20 or more.' },
      es: { title: '10% de reembolso en Green Grocer', description: 'Gasta 20 o más.' },
    },
  })
  @IsTranslations()
  translations: Record<string, { title: string; description?: string }>;

  @ApiProperty({ example: 20, description: 'Minimum purchase, major units of currency' })
  @IsAmount()
  min_spend: number;

  @ApiPropertyOptional({
    enum: REWARD_TYPES,
    default: 'fixed',
    example: 'percent',
    description:
      'fixed pays cashback_amount; percent pays cashback_percent of the purchase, capped at cashback_amount',
  })
  @IsOptional()
  @IsIn(REWARD_TYPES)
  reward_type?: string;

  @ApiProperty({
    example: 5,
    description: 'Fixed reward, or the cap of a percent reward (major units)',
  })
  @IsAmount({ positive: true })
  cashback_amount: number;

  @ApiPropertyOptional({
    example: 10,
    description: 'Percent of the purchase (percent offers only), 0 < x ≤ 100',
  })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 4 })
  @Min(0.0001)
  @Max(100)
  cashback_percent?: number;

  @ApiPropertyOptional({
    example: 1,
    default: 0,
    description: "Merchant's fee on top of the cashback (major units)",
  })
  @IsOptional()
  @IsAmount()
  merchant_fee_amount?: number;

  @ApiProperty({ example: 'USD' })
  @IsCurrencyCode()
  currency: string;

  @ApiProperty({ example: '2026-11-01T00:00:00Z' })
  @IsTimestamp()
  starts_at: string;

  @ApiProperty({ example: '2027-01-31T23:59:59Z' })
  @IsTimestamp()
  expires_at: string;

  @ApiPropertyOptional({
    example: 5000,
    nullable: true,
    type: Number,
    description: 'Merchant-funded cap (major units); null = unlimited',
  })
  @IsOptional()
  @IsAmount({ positive: true })
  budget_total?: number | null;

  @ApiPropertyOptional({
    type: [String],
    example: ['premium'],
    description: 'Segment codes; empty = unrestricted',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Length(1, 64, { each: true })
  segments?: string[];

  @ApiPropertyOptional({ example: 1, default: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  max_redemptions_per_cardholder?: number;

  @ApiPropertyOptional({
    example: 0,
    default: 0,
    description: 'Higher comes first in the featured sort order',
  })
  @IsOptional()
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  priority?: number;

  @ApiPropertyOptional({
    type: QualificationDto,
    nullable: true,
    example: { days_of_week: [1, 2, 3, 4, 5], time_of_day: { from: '11:00', to: '14:00' } },
    description: 'Qualification rules; null (on update) removes them',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => QualificationDto)
  qualification?: QualificationDto | null;

  @ApiPropertyOptional({
    type: GoalDto,
    nullable: true,
    example: { type: 'purchase_count', target: 3 },
    description:
      'Goal offer: the reward needs several qualifying purchases (each meeting every rule, min_spend included); the round starts over while max_redemptions_per_cardholder allows. null (on update) removes it',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => GoalDto)
  goal?: GoalDto | null;

  @ApiPropertyOptional({
    example: 10,
    default: 0,
    minimum: 0,
    maximum: 50,
    description:
      'Share of eligible cardholders held out (never shown the offer, never rewarded) to measure lift: 0-50 with at most one decimal (docs/lift.md). Fixed once a cardholder added the offer or it has been active at or after starts_at (409 `holdout_locked`)',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  holdout_percent?: number;
}

/** Every field optional; merchant and currency are fixed once the offer exists. */
export class UpdateOfferDto extends PartialType(
  OmitType(CreateOfferDto, ['merchant_id', 'currency'] as const),
) {}

export class OfferListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: OFFER_STATUSES })
  @IsOptional()
  @IsIn(OFFER_STATUSES)
  status?: string;

  @ApiPropertyOptional({ example: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b' })
  @IsOptional()
  @IsUUID()
  merchant_id?: string;
}

/** A live offer's version waiting for approval. */
export class PendingVersionDto {
  @ApiProperty({ example: '6a1c2e3f-4b5d-4e6f-8a7b-9c0d1e2f3a4b' }) id: string;
  @ApiProperty({ example: 2 }) number: number;
  @ApiProperty({ enum: ['draft', 'in_review'], example: 'in_review' }) status: string;
  @ApiProperty({ type: AuditActorDto, description: 'Who changed it last' })
  changed_by: AuditActorDto;
}

export class AdminOfferDto {
  @ApiProperty({ example: 'c5d8...' }) id: string;
  @ApiProperty({ example: '3f2a...' }) merchant_id: string;
  @ApiProperty({ type: [String], example: [] }) institution_ids: string[];
  @ApiProperty({ example: 'active' }) status: string;
  @ApiProperty({ example: { en: { title: '10% back', description: 'Spend 20 or more.' } } })
  translations: Record<string, { title: string; description?: string }>;
  @ApiProperty({ example: 20 }) min_spend: number;
  @ApiProperty({ example: 'percent' }) reward_type: string;
  @ApiProperty({ example: 5 }) cashback_amount: number;
  @ApiProperty({ example: 10, nullable: true, type: Number }) cashback_percent: number | null;
  @ApiProperty({ example: 1 }) merchant_fee_amount: number;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) starts_at: string;
  @ApiProperty({ example: '2027-01-31T23:59:59.000Z' }) expires_at: string;
  @ApiProperty({ example: 5000, nullable: true, type: Number }) budget_total: number | null;
  @ApiProperty({ example: 0 }) budget_used: number;
  @ApiProperty({ example: ['premium'] }) segments: string[];
  @ApiProperty({ example: 1 }) max_redemptions_per_cardholder: number;
  @ApiProperty({ example: 0 }) priority: number;
  @ApiProperty({
    type: QualificationDto,
    nullable: true,
    example: { max_spend: 200, days_of_week: [6, 7], networks: ['visa'] },
  })
  qualification: QualificationDto | null;
  @ApiProperty({
    type: GoalDto,
    nullable: true,
    example: { type: 'cumulative_spend', target: 100 },
    description: 'The goal of a goal offer (target in major units for cumulative_spend), or null',
  })
  goal: GoalDto | null;
  @ApiProperty({
    example: 10,
    description: 'Share of eligible cardholders held out, as sent (0 = no holdout)',
  })
  holdout_percent: number;
  @ApiProperty({
    type: PendingVersionDto,
    nullable: true,
    example: null,
    description:
      "A live offer's money edits waiting for approval (GET …/versions shows them), or null. The fields above are the live version's.",
  })
  pending_version: PendingVersionDto | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) updated_at: string;
}

/** 202: a money edit of a live offer waits for approval; the live version keeps paying. */
export class OfferUpdateAcceptedDto {
  @ApiProperty({ type: AdminOfferDto, description: 'The live version, still paying' })
  offer: AdminOfferDto;
  @ApiProperty({ type: PendingVersionDto }) pending_version: PendingVersionDto;
}

/** Any JSON value, null included (a field's value in the API's units). */
const ANY_VALUE = {
  oneOf: [
    { type: 'string', nullable: true },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: {} },
    { type: 'object', additionalProperties: true },
  ],
};

export class FieldChangeDto {
  @ApiProperty({ example: 'cashback_amount' }) field: string;
  @ApiProperty({ ...ANY_VALUE, example: 5, description: 'Before (API units); null when unset' })
  from: unknown;
  @ApiProperty({ ...ANY_VALUE, example: 8, description: 'After' }) to: unknown;
}

export class OfferVersionDto {
  @ApiProperty({ example: '6a1c2e3f-4b5d-4e6f-8a7b-9c0d1e2f3a4b' }) id: string;
  @ApiProperty({ example: 2 }) number: number;
  @ApiProperty({
    enum: OFFER_VERSION_STATUSES,
    example: 'approved',
    description:
      '`draft`, `in_review` (submitted), `approved` (the live version), `superseded` (was live, replaced)',
  })
  status: string;
  @ApiProperty({ type: AuditActorDto }) created_by: AuditActorDto;
  @ApiProperty({ type: AuditActorDto, description: 'Who changed it last' })
  changed_by: AuditActorDto;
  @ApiProperty({ type: AuditActorDto, nullable: true }) approved_by: AuditActorDto | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-22T09:30:00.000Z' })
  approved_at: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-22T09:30:00.000Z',
    description:
      'Purchases made from this moment are judged by this version; null: every purchase (an edit made with approval off)',
  })
  effective_from: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: "The approver's note of the last rejection",
  })
  review_note: string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The terms this version sets (every field but texts, priority and status), as the offer shows them',
    example: { reward_type: 'fixed', cashback_amount: 8, min_spend: 20, budget_total: 5000 },
  })
  terms: Record<string, unknown>;
  @ApiProperty({
    type: [FieldChangeDto],
    description:
      'What it changes from the version live before it (from the nothing before, for the first)',
  })
  changes: FieldChangeDto[];
}

export class OfferVersionListDto {
  @ApiProperty({ type: [OfferVersionDto], description: 'Newest first' }) data: OfferVersionDto[];
}

export class RejectOfferDto {
  @ApiProperty({
    example: 'The cap is too high for this merchant.',
    description: 'Why (1-2000 chars)',
  })
  @IsString()
  @Length(1, 2000)
  note: string;
}

export class SimulateOfferDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'A transaction as POST /api/v1/transactions takes it (same validation; institution_id may be left out)',
    example: {
      transaction_ref: 'try-1',
      cardholder_token: 'chk_7f3a9c2e',
      amount: '42.50',
      currency: 'USD',
      transacted_at: '2026-11-23T12:30:00Z',
      merchant: { card_acceptor_id: 'CA-000123' },
    },
  })
  @IsObject()
  purchase: Record<string, unknown>;

  @ApiProperty({ example: '5b3f0c2e-8d4a-4e6b-9f1a-2c3d4e5f6a7b' })
  @IsUUID()
  institution_id: string;
}

export class SimulatedVersionDto {
  @ApiProperty({ example: '6a1c2e3f-4b5d-4e6f-8a7b-9c0d1e2f3a4b' }) id: string;
  @ApiProperty({ example: 2 }) number: number;
  @ApiProperty({ enum: ['draft', 'in_review'], example: 'in_review' }) status: string;
}

export class OfferSimulationDto extends SimulationResultDto {
  @ApiProperty({
    type: SimulatedVersionDto,
    nullable: true,
    description: 'The version evaluated (draft or pending); null: the live terms (nothing open)',
  })
  version: SimulatedVersionDto | null;
  @ApiProperty({
    type: EvaluationDto,
    nullable: true,
    description:
      "This offer's evaluation (also among `evaluations`); null when not evaluated (a refund)",
  })
  evaluation: EvaluationDto | null;
}
