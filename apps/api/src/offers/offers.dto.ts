import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsDefined,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import {
  FEED_LIMIT_MAX,
  FEED_LIMIT_MIN,
  LOCALE_TAG,
  REASON_CODES,
  REWARD_TYPES,
} from '@app/domain';
import { QualificationDto } from '../common/qualification.dto';

/** Opaque tokens: 1–256 characters without control characters (the same rule as transaction events). */
const TOKEN = /^[^\u0000-\u001f\u007f]+$/;
const TOKEN_MESSAGE = 'must not contain control characters';

export class FeedQueryDto {
  @ApiProperty({
    example: 'chk_7f3a9c2e41b84d0f9a6e',
    description:
      'The institution’s opaque token for the cardholder (a keyed HMAC, never an e-mail or customer id).',
  })
  @IsDefined({ message: 'cardholder_token is required' })
  @IsString()
  @Length(1, 256)
  @Matches(TOKEN, { message: `cardholder_token ${TOKEN_MESSAGE}` })
  cardholder_token: string;

  @ApiPropertyOptional({
    example: 'es',
    description:
      'en, es or pt-BR (case-insensitive; a regional tag such as es-MX uses its language). When the program does not offer the language, the program’s first supported language is used.',
  })
  @IsOptional()
  @IsString()
  @Matches(LOCALE_TAG, { message: 'locale must be a language tag such as en, es or pt-BR' })
  locale?: string;

  @ApiPropertyOptional({
    example: 'premium',
    description:
      'Segment code from your systems. Segment-limited offers appear only on an exact match. Never persisted, never logged (in memory it keys the cached list of live offers).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  segment?: string;

  @ApiPropertyOptional({
    example: 10,
    minimum: FEED_LIMIT_MIN,
    maximum: FEED_LIMIT_MAX,
    description:
      'Offers to return, 1–100; capped by the program’s widget_feed_limit, which is also the default.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(FEED_LIMIT_MIN)
  @Max(FEED_LIMIT_MAX)
  limit?: number;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    example: 'true',
    description: 'true ranks offers by the cardholder’s affinity and adds a reason to each offer.',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  personalize?: 'true' | 'false';

  @ApiPropertyOptional({
    example: 'Green Grocer,3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b',
    description:
      'With personalize: comma-separated merchant ids or names to favour (up to 50). In memory only: never stored, never logged.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  prefer_merchants?: string;

  @ApiPropertyOptional({
    example: 'groceries,fuel',
    description:
      'With personalize: comma-separated merchant category codes to favour (up to 50). In memory only: never stored, never logged.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  prefer_categories?: string;
}

export class ReasonDto {
  @ApiProperty({ enum: REASON_CODES, example: 'shopped_here' }) code: string;
  @ApiProperty({
    example: 'Because you shop at Green Grocer',
    description: 'Localized sentence for display',
  })
  text: string;
}

/** A goal offer's progress for this cardholder: the open round. */
export class GoalProgressDto {
  @ApiProperty({
    example: 2,
    description:
      'Counted so far in the open round: purchases, or an amount in major units of the offer currency',
  })
  current: number;
  @ApiProperty({ example: 3, description: 'The goal: purchases, or an amount in major units' })
  target: number;
  @ApiProperty({ enum: ['purchases', 'amount'], example: 'purchases' })
  unit: 'purchases' | 'amount';
}

export class FeedOfferDto {
  @ApiProperty({ example: 'c5d8a7e2-4b1f-4c3d-9e8a-7b6c5d4e3f21' }) id: string;
  @ApiProperty({ example: '5 back at Green Grocer', description: 'Localized' }) title: string;
  @ApiProperty({ example: 'Spend 20 or more in one purchase.', description: 'Localized' })
  description: string;
  @ApiProperty({ example: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b' }) merchant_id: string;
  @ApiProperty({ example: 'Green Grocer', description: 'Additive: the merchant’s display name' })
  merchant_name: string;
  @ApiProperty({ example: 20, description: 'Minimum purchase, major units' }) min_spend: number;
  @ApiProperty({
    example: 5,
    description: 'Fixed reward, or the most a percent offer pays (its cap), major units',
  })
  cashback_amount: number;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) starts_at: string;
  @ApiProperty({ example: '2027-01-31T23:59:59.000Z' }) expires_at: string;
  @ApiProperty({ example: false, description: 'Whether the cardholder is enrolled' })
  added: boolean;
  @ApiProperty({
    enum: REWARD_TYPES,
    example: 'fixed',
    description:
      'Additive: fixed pays cashback_amount; percent pays cashback_percent of the purchase, capped at cashback_amount',
  })
  reward_type: string;
  @ApiProperty({
    example: null,
    nullable: true,
    type: Number,
    description: 'Additive: percent of the purchase for percent offers, else null',
  })
  cashback_percent: number | null;
  @ApiProperty({
    type: QualificationDto,
    nullable: true,
    example: { days_of_week: [6, 7], channels: ['in_store'] },
    description:
      'Additive: the offer’s terms (which purchases qualify), for display; null when it has none',
  })
  qualification: QualificationDto | null;
  @ApiPropertyOptional({
    type: GoalProgressDto,
    example: { current: 2, target: 3, unit: 'purchases' },
    description:
      'Additive, goal offers only: the cardholder’s progress in the open round (0 when not added); absent for other offers',
  })
  progress?: GoalProgressDto;
  @ApiPropertyOptional({ type: ReasonDto, description: 'Only with personalize=true' })
  reason?: ReasonDto;
}

export class FeedResponseDto {
  @ApiProperty({ type: [FeedOfferDto] }) offers: FeedOfferDto[];
  @ApiProperty({ example: 42, description: 'Eligible offers before the limit' }) total: number;
  @ApiProperty({ example: false, description: 'true only when personalize=true' })
  personalized: boolean;
}

export class AddOfferDto {
  @ApiProperty({
    example: 'chk_7f3a9c2e41b84d0f9a6e',
    description: 'The institution’s opaque token for the cardholder',
  })
  @IsDefined({ message: 'cardholder_token is required' })
  @IsString()
  @Length(1, 256)
  @Matches(TOKEN, { message: `cardholder_token ${TOKEN_MESSAGE}` })
  cardholder_token: string;

  @ApiPropertyOptional({
    example: 'card_tok_9d8c7b6a',
    description: 'Tokenized card (never the real number); optional, stored with the enrollment',
  })
  @IsOptional()
  @IsString()
  @Length(1, 256)
  @Matches(TOKEN, { message: `card_token ${TOKEN_MESSAGE}` })
  card_token?: string;

  @ApiPropertyOptional({
    example: 'premium',
    description:
      'Required for a segment-limited offer: the same segment as in the feed. Checked, never stored or logged.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  segment?: string;
}

export class EnrollmentResultDto {
  @ApiProperty({ enum: ['added', 'already_added'], example: 'added' }) status:
    'added' | 'already_added';
  @ApiProperty({
    example: '8b0c6f1e-2d3a-4e5f-9a8b-7c6d5e4f3a21',
    description: 'The enrollment; the same on every add of this offer for this cardholder',
  })
  cardholder_offer_id: string;
}
