import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  AUTHORIZATION_EXPIRY_DAYS,
  LIFECYCLE_DEFAULTS,
  LOCALES,
  PLANS,
  PORTAL_ROLES,
  PROGRAM_DEFAULTS,
  REWARD_ON,
  SCOPES,
  CLAIM_WINDOW_DAYS,
  SORT_ORDERS,
} from '@app/domain';
import { IsTimestamp, IsTimeZoneName } from '../common/validators';

export class ProgramSettingsDto {
  @ApiPropertyOptional({
    example: ['en', 'es', 'pt-BR'],
    description: 'Ordered; the first is the default language',
    enum: LOCALES,
    isArray: true,
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @ArrayUnique()
  @IsIn(LOCALES, { each: true })
  supported_locales?: string[];

  @ApiPropertyOptional({
    enum: SORT_ORDERS,
    default: PROGRAM_DEFAULTS.sortOrder,
    example: 'featured',
  })
  @IsOptional()
  @IsIn(SORT_ORDERS)
  sort_order?: string;

  @ApiPropertyOptional({ example: 10, default: 10, minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  max_active_offers?: number;

  @ApiPropertyOptional({ example: 20, default: 20, minimum: 1, maximum: 100 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  widget_feed_limit?: number;

  @ApiPropertyOptional({
    example: 0.5,
    default: 0.5,
    minimum: 0,
    maximum: 1,
    description: "Service's share of the merchant fee",
  })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 4 })
  @Min(0)
  @Max(1)
  service_share_rate?: number;

  @ApiPropertyOptional({ example: 30, default: 30, minimum: 0, maximum: 3650 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3650)
  settlement_hold_days?: number;

  @ApiPropertyOptional({
    example: 'America/Sao_Paulo',
    default: 'UTC',
    description: "IANA time zone in which offers' days_of_week and time_of_day are read",
  })
  @IsOptional()
  @IsTimeZoneName()
  time_zone?: string;

  @ApiPropertyOptional({
    enum: REWARD_ON,
    default: LIFECYCLE_DEFAULTS.rewardOn,
    example: 'authorization',
    description:
      'When a card purchase sent as authorization + clearing is rewarded: `clearing` (on the cleared amount) or `authorization` (at the swipe; the clearing confirms it, a void or an expiry reverses it). Purchases sent as `purchase` are rewarded as always.',
  })
  @IsOptional()
  @IsIn(REWARD_ON)
  reward_on?: string;

  @ApiPropertyOptional({
    example: 7,
    default: LIFECYCLE_DEFAULTS.authorizationExpiryDays,
    minimum: AUTHORIZATION_EXPIRY_DAYS.min,
    maximum: AUTHORIZATION_EXPIRY_DAYS.max,
    description:
      'Days after its transacted_at an authorization without a clearing expires (with reward_on=authorization its redemption is then reversed)',
  })
  @IsOptional()
  @IsInt()
  @Min(AUTHORIZATION_EXPIRY_DAYS.min)
  @Max(AUTHORIZATION_EXPIRY_DAYS.max)
  authorization_expiry_days?: number;

  @ApiPropertyOptional({
    example: 90,
    default: PROGRAM_DEFAULTS.claimWindowDays,
    minimum: CLAIM_WINDOW_DAYS.min,
    maximum: CLAIM_WINDOW_DAYS.max,
    description:
      'Days after its transacted_at a purchase may be claimed for a missing reward (later: `claim_window_expired`)',
  })
  @IsOptional()
  @IsInt()
  @Min(CLAIM_WINDOW_DAYS.min)
  @Max(CLAIM_WINDOW_DAYS.max)
  claim_window_days?: number;
}

export class RateLimitsDto {
  @ApiPropertyOptional({
    example: 6000,
    description: 'Requests per minute per key for the offers endpoints',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  offers?: number;

  @ApiPropertyOptional({
    example: 6000,
    description: 'Requests per minute per key for the transaction endpoints',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  transactions?: number;

  @ApiPropertyOptional({
    example: 60,
    description: 'Requests per minute per key for the reporting endpoints',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  reporting?: number;

  @ApiPropertyOptional({
    example: 600,
    description: 'Requests per minute per key for the claims endpoints',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  claims?: number;
}

export class CreateInstitutionDto {
  @ApiProperty({ example: 'Demo Bank' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ enum: PLANS, example: 'growth' })
  @IsIn(PLANS)
  plan: string;

  @ApiPropertyOptional({ type: ProgramSettingsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ProgramSettingsDto)
  program?: ProgramSettingsDto;

  @ApiPropertyOptional({ type: RateLimitsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitsDto)
  rate_limits?: RateLimitsDto;
}

export class UpdateInstitutionDto {
  @ApiPropertyOptional({ example: 'Demo Bank S.A.' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ enum: PLANS, example: 'enterprise' })
  @IsOptional()
  @IsIn(PLANS)
  plan?: string;

  @ApiPropertyOptional({
    enum: ['active', 'suspended'],
    example: 'active',
    description: "A suspended institution's keys get 403 institution_suspended",
  })
  @IsOptional()
  @IsIn(['active', 'suspended'])
  status?: string;

  @ApiPropertyOptional({ type: ProgramSettingsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ProgramSettingsDto)
  program?: ProgramSettingsDto;

  @ApiPropertyOptional({
    type: RateLimitsDto,
    description: 'Replaces the overrides; {} clears them',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitsDto)
  rate_limits?: RateLimitsDto;
}

export class ProgramDto {
  @ApiProperty({ example: ['en', 'es'] }) supported_locales: string[];
  @ApiProperty({ example: 'featured' }) sort_order: string;
  @ApiProperty({ example: 10 }) max_active_offers: number;
  @ApiProperty({ example: 20 }) widget_feed_limit: number;
  @ApiProperty({ example: 0.5 }) service_share_rate: number;
  @ApiProperty({ example: 30 }) settlement_hold_days: number;
  @ApiPropertyOptional({
    example: 'America/Sao_Paulo',
    description: 'Present once set; absent means UTC',
  })
  time_zone?: string;
  @ApiPropertyOptional({
    enum: REWARD_ON,
    example: 'authorization',
    description: 'Present once set; absent means clearing',
  })
  reward_on?: string;
  @ApiPropertyOptional({ example: 7, description: 'Present once set; absent means 7' })
  authorization_expiry_days?: number;
  @ApiProperty({ example: 90 }) claim_window_days: number;
}

export class InstitutionDto {
  @ApiProperty({ example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' }) id: string;
  @ApiProperty({ example: 'Demo Bank' }) name: string;
  @ApiProperty({ example: 'growth' }) plan: string;
  @ApiProperty({ example: 'active' }) status: string;
  @ApiProperty() program: ProgramDto;
  @ApiProperty({ example: { reporting: 120 } }) rate_limits: RateLimitsDto;
  @ApiProperty({ example: 'https://bank.example/webhooks/offers', nullable: true, type: String })
  webhook_url: string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
}

export class CreateUserDto {
  @ApiProperty({ example: 'ana@bank.example' })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'correct horse battery staple', minLength: 12 })
  @IsString()
  @MinLength(12)
  @MaxLength(200)
  password: string;

  @ApiProperty({ enum: PORTAL_ROLES, example: 'admin' })
  @IsIn(PORTAL_ROLES)
  role: string;
}

export class PortalUserDto {
  @ApiProperty({ example: 'c0a8012e-7d1b-4d8a-9c55-8e2a4b1d2f3a' }) id: string;
  @ApiProperty({ example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' }) institution_id: string;
  @ApiProperty({ example: 'ana@bank.example' }) email: string;
  @ApiProperty({ example: 'admin' }) role: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
}

export class CreateApiKeyDto {
  @ApiProperty({ example: 'production backend' })
  @IsString()
  @Length(1, 100)
  name: string;

  @ApiPropertyOptional({
    enum: SCOPES,
    isArray: true,
    nullable: true,
    example: ['offers', 'transactions', 'reporting'],
    description:
      'Defaults to the published three (offers, transactions, reporting); null makes a key as from before scopes (holds those three). `privacy` (erasure and export of cardholder data) is never implied: name it',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(SCOPES, { each: true })
  scopes?: string[] | null;

  @ApiPropertyOptional({
    example: '2027-11-21T00:00:00Z',
    nullable: true,
    type: String,
    description: 'Defaults to one year from now; null: never',
  })
  @IsOptional()
  @IsTimestamp()
  expires_at?: string | null;
}

export class IssuedApiKeyDto {
  @ApiProperty({ example: '9a1f2c3d-1111-4a4a-9b9b-123456789abc' }) id: string;
  @ApiProperty({ example: 'plo_live_q3V...Xy', description: 'The plaintext key, shown this once' })
  key: string;
  @ApiProperty({ example: 'production backend' }) name: string;
  @ApiProperty({ example: 'plo_live_…x9Qa' }) prefix: string;
  @ApiProperty({ example: ['offers', 'transactions', 'reporting'] }) scopes: string[];
  @ApiProperty({ example: '2027-11-21T00:00:00.000Z', nullable: true, type: String }) expires_at:
    string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
}
