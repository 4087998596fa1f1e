import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { AUDIENCES, CHANNELS } from '@app/domain';
import { IsAmount, IsTimeOfDay } from './validators';

// An offer's qualification rules: written by operators (admin API), shown to cardholders as the
// offer's terms (feed and widget).

/** Local hours of a day-part offer; `to` not after `from` crosses midnight. */
export class TimeOfDayDto {
  @ApiProperty({ example: '22:00', description: 'Local start, included (HH:MM)' })
  @IsTimeOfDay()
  from: string;

  @ApiProperty({ example: '02:00', description: 'Local end, excluded (HH:MM)' })
  @IsTimeOfDay()
  to: string;
}

/**
 * Optional rules narrowing which purchases qualify; each one that fails is a simulate reason.
 * Days and hours are read in the program's time_zone.
 */
export class QualificationDto {
  @ApiPropertyOptional({
    example: 200,
    description: 'Purchases above this amount (offer currency) do not qualify: above_max_spend',
  })
  @IsOptional()
  @IsAmount({ positive: true })
  max_spend?: number;

  @ApiPropertyOptional({
    example: [6, 7],
    type: [Number],
    description: 'ISO weekdays 1-7 (Monday = 1), local: outside_days',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(7, { each: true })
  days_of_week?: number[];

  @ApiPropertyOptional({
    type: TimeOfDayDto,
    example: { from: '22:00', to: '02:00' },
    description: 'Local hours [from, to), may cross midnight: outside_hours',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => TimeOfDayDto)
  time_of_day?: TimeOfDayDto;

  @ApiPropertyOptional({
    example: ['visa', 'elo'],
    type: [String],
    description:
      "Card networks, matched case-insensitively against the transaction's network: network_mismatch",
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Length(1, 50, { each: true })
  networks?: string[];

  @ApiPropertyOptional({
    example: ['online'],
    enum: CHANNELS,
    isArray: true,
    description:
      "Where the purchase was made, against the transaction's channel; a transaction without one never matches: channel_mismatch",
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(CHANNELS, { each: true })
  channels?: string[];

  @ApiPropertyOptional({
    example: 14,
    minimum: 1,
    maximum: 365,
    description:
      'The enrollment counts for this many days after the add, then shows as not added and may be added again: activation_expired',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  activation_days?: number;

  @ApiPropertyOptional({
    enum: AUDIENCES,
    example: 'new',
    default: 'all',
    description:
      'all; new: no purchase by the cardholder at this merchant in the lookback_days before the transaction; lapsed: one before that window, none inside it. Applied in matching and the feed: audience_mismatch',
  })
  @IsOptional()
  @IsIn(AUDIENCES)
  audience?: string;

  @ApiPropertyOptional({
    example: 90,
    minimum: 1,
    maximum: 365,
    description: 'Days the audience looks back; required with audience new or lapsed',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  lookback_days?: number;
}
