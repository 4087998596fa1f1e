import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  FEED_LIMIT_MAX,
  FEED_LIMIT_MIN,
  LOCALE_TAG,
  MAX_WIDGET_ORIGINS,
  SESSION_TTL_DEFAULT_SECONDS,
  SESSION_TTL_MAX_SECONDS,
  SESSION_TTL_MIN_SECONDS,
} from '@app/domain';
import { FeedResponseDto } from '../offers/offers.dto';

const TOKEN = /^[^\u0000-\u001f\u007f]+$/;

export class CreateCardholderSessionDto {
  @ApiProperty({
    example: 'chk_7f3a9c2e41b84d0f9a6e',
    description:
      'The institution’s opaque token for the cardholder (a keyed HMAC, never an e-mail or customer id)',
  })
  @IsString()
  @Length(1, 256)
  @Matches(TOKEN, { message: 'cardholder_token must not contain control characters' })
  cardholder_token: string;

  @ApiPropertyOptional({
    example: 'card_tok_9d8c7b6a',
    description: 'Tokenized card, stored with enrollments the widget makes (never the real number)',
  })
  @IsOptional()
  @IsString()
  @Length(1, 256)
  @Matches(TOKEN, { message: 'card_token must not contain control characters' })
  card_token?: string;

  @ApiPropertyOptional({
    example: 'premium',
    description:
      'Segment code from your systems, applied to the widget’s feed and adds. Sealed inside the token: never stored.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  segment?: string;

  @ApiPropertyOptional({
    example: 'pt-BR',
    description: 'en, es or pt-BR: the language of offer texts unless the widget asks for another',
  })
  @IsOptional()
  @IsString()
  @Matches(LOCALE_TAG, { message: 'locale must be a language tag such as en, es or pt-BR' })
  locale?: string;

  @ApiPropertyOptional({
    example: 900,
    minimum: SESSION_TTL_MIN_SECONDS,
    maximum: SESSION_TTL_MAX_SECONDS,
    default: SESSION_TTL_DEFAULT_SECONDS,
    description: 'Lifetime in seconds, 60–3600 (default 900)',
  })
  @IsOptional()
  @IsInt()
  @Min(SESSION_TTL_MIN_SECONDS)
  @Max(SESSION_TTL_MAX_SECONDS)
  ttl_seconds?: number;
}

export class CardholderSessionDto {
  @ApiProperty({
    example: 'cs_AZ3k9c1f0aQe2mBf7rT0yW6b5sKx4Lh8nV1uPq2Zc9dGx0EoR7tYb3Jm',
    description:
      'Opaque session token for the widget (`session-token` attribute). Sealed (AES-256-GCM): it carries no readable cardholder data.',
  })
  session_token: string;
  @ApiProperty({ example: '2026-11-23T12:15:00.000Z' }) expires_at: string;
}

export class WidgetFeedQueryDto {
  @ApiPropertyOptional({
    example: 'es',
    description:
      'Language of offer texts for this request (en, es, pt-BR); default: the session’s locale, then the program’s first language',
  })
  @IsOptional()
  @IsString()
  @Matches(LOCALE_TAG, { message: 'locale must be a language tag such as en, es or pt-BR' })
  locale?: string;

  @ApiPropertyOptional({
    example: 10,
    minimum: FEED_LIMIT_MIN,
    maximum: FEED_LIMIT_MAX,
    description: 'Offers to return, 1–100; capped by the program’s widget_feed_limit (the default)',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(FEED_LIMIT_MIN)
  @Max(FEED_LIMIT_MAX)
  limit?: number;
}

const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

export class WidgetThemeDto {
  @ApiPropertyOptional({ example: '#0b5fff', description: 'Buttons, links, progress (hex color)' })
  @IsOptional()
  @Matches(COLOR, { message: 'accent must be a hex color such as #0b5fff' })
  accent?: string;
  @ApiPropertyOptional({ example: '#ffffff', description: 'Card background (hex color)' })
  @IsOptional()
  @Matches(COLOR, { message: 'surface must be a hex color such as #ffffff' })
  surface?: string;
  @ApiPropertyOptional({ example: '#1a1c21', description: 'Text (hex color)' })
  @IsOptional()
  @Matches(COLOR, { message: 'text must be a hex color such as #1a1c21' })
  text?: string;
  @ApiPropertyOptional({ example: '12px', description: 'Corner radius, 0px–32px' })
  @IsOptional()
  @Matches(/^(?:[0-9]|[12][0-9]|3[0-2])px$/, { message: 'radius must be 0px to 32px' })
  radius?: string;
  @ApiPropertyOptional({
    example: 'Inter, system-ui, sans-serif',
    description: 'Font family list (letters, digits, spaces, commas, hyphens, quotes)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^[\w\s,'"-]+$/, { message: 'font must be a font-family list' })
  font?: string;
  @ApiPropertyOptional({
    enum: ['light', 'dark', 'auto'],
    example: 'auto',
    description: 'auto follows the cardholder’s system setting',
  })
  @IsOptional()
  @IsIn(['light', 'dark', 'auto'])
  mode?: 'light' | 'dark' | 'auto';
}

export class WidgetFeedResponseDto extends FeedResponseDto {
  @ApiProperty({
    type: WidgetThemeDto,
    description: 'The institution’s theme defaults (the host page’s CSS custom properties win)',
  })
  theme: WidgetThemeDto;
}

export class WidgetSettingsDto {
  @ApiProperty({
    example: ['https://online.bank.example'],
    description:
      'Exact origins allowed to call the widget API (https; http only outside production)',
  })
  allowed_origins: string[];
  @ApiProperty({ type: WidgetThemeDto }) theme: WidgetThemeDto;
  @ApiProperty({ example: false, description: 'Rank the widget’s feed by cardholder affinity' })
  personalize: boolean;
  @ApiProperty({
    example: 'https://offers.example/widget/v1/offers-widget.js',
    description: 'The script to include (first of the two lines to paste)',
  })
  script_url: string;
  @ApiProperty({ example: '2026-11-23T10:00:00.000Z', nullable: true, type: String })
  updated_at: string | null;
}

export class UpdateWidgetSettingsDto {
  @ApiProperty({ example: ['https://online.bank.example'], maxItems: MAX_WIDGET_ORIGINS })
  @IsArray()
  @ArrayMaxSize(MAX_WIDGET_ORIGINS)
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  allowed_origins: string[];
  @ApiPropertyOptional({ type: WidgetThemeDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => WidgetThemeDto)
  theme?: WidgetThemeDto;
  @ApiPropertyOptional({ example: false })
  @IsOptional()
  @IsBoolean()
  personalize?: boolean;
}

export class PreviewSessionDto {
  @ApiPropertyOptional({
    example: 'portal-preview',
    description: 'Test cardholder to preview as (default `portal-preview`)',
  })
  @IsOptional()
  @IsString()
  @Length(1, 256)
  @Matches(TOKEN, { message: 'cardholder_token must not contain control characters' })
  cardholder_token?: string;
  @ApiPropertyOptional({ example: 'en' })
  @IsOptional()
  @IsString()
  @Matches(LOCALE_TAG, { message: 'locale must be a language tag such as en, es or pt-BR' })
  locale?: string;
  @ApiPropertyOptional({ example: 'premium' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  segment?: string;
}
