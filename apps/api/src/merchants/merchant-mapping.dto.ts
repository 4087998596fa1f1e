import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Length,
  ValidateNested,
} from 'class-validator';
import { MERCHANT_IDENTIFIER_TYPES } from '@app/domain';

export class MerchantIdentifierQueryDto {
  @ApiPropertyOptional({
    example: 'DEMO-CA-GREENGROCER',
    maxLength: 200,
    description: 'Send this (with its type) or card_acceptor_id.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  merchant_identifier?: string;

  @ApiPropertyOptional({
    enum: MERCHANT_IDENTIFIER_TYPES,
    default: 'card_acceptor',
    example: 'pix_key',
  })
  @IsOptional()
  @IsIn(MERCHANT_IDENTIFIER_TYPES)
  merchant_identifier_type?: string;

  @ApiPropertyOptional({
    example: 'DEMO-CA-GREENGROCER',
    maxLength: 200,
    description: 'Legacy alias of a card_acceptor merchant_identifier.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  card_acceptor_id?: string;
}

export class ResolveMerchantsDto {
  @ApiProperty({ type: [MerchantIdentifierQueryDto], minItems: 1, maxItems: 1000 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => MerchantIdentifierQueryDto)
  identifiers: MerchantIdentifierQueryDto[];
}

export class ResolvedMerchantDto {
  @ApiProperty({ example: 0 }) index: number;
  @ApiProperty({ example: 'DEMO-CA-GREENGROCER' }) merchant_identifier: string;
  @ApiProperty({ enum: MERCHANT_IDENTIFIER_TYPES, example: 'card_acceptor' })
  merchant_identifier_type: string;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    example: '7d1f0c2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
  })
  merchant_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Corner Grocer' }) merchant_name:
    string | null;
}

export class ResolveMerchantsResultDto {
  @ApiProperty({ type: [ResolvedMerchantDto] }) results: ResolvedMerchantDto[];
}
