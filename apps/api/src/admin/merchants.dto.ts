import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateNested,
} from 'class-validator';
import { MERCHANT_IDENTIFIER_TYPES } from '@app/domain';
import { PageQuery } from '../common/pagination';

export class MerchantIdentifierInputDto {
  @ApiProperty({ enum: MERCHANT_IDENTIFIER_TYPES, example: 'card_acceptor' })
  @IsIn(MERCHANT_IDENTIFIER_TYPES)
  type: string;

  @ApiProperty({
    example: '000123456789012',
    description: 'Card-acceptor id, PIX key, UPI VPA, CoDi id or PSP merchant id',
  })
  @IsString()
  @Length(1, 200)
  value: string;
}

export class CreateMerchantDto {
  @ApiProperty({ example: 'Green Grocer' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ example: 'groceries', description: 'Lowercase category code' })
  @Matches(/^[a-z][a-z0-9_]{0,49}$/, { message: 'must be a lowercase code such as groceries' })
  category: string;

  @ApiPropertyOptional({ type: [MerchantIdentifierInputDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => MerchantIdentifierInputDto)
  identifiers?: MerchantIdentifierInputDto[];
}

export class MerchantListQuery extends PageQuery {
  @ApiPropertyOptional({ example: 'groceries' })
  @IsOptional()
  @Matches(/^[a-z][a-z0-9_]{0,49}$/, { message: 'must be a lowercase category code' })
  category?: string;

  @ApiPropertyOptional({
    example: 'grocer',
    description:
      'A part of the name (case-insensitive) or the exact value of an identifier (e.g. a card acceptor id), 1-200 characters',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  q?: string;
}

export class MerchantIdentifierDto {
  @ApiProperty({ example: '7a6b...' }) id: string;
  @ApiProperty({ example: 'card_acceptor' }) type: string;
  @ApiProperty({ example: '000123456789012' }) value: string;
}

export class MerchantDto {
  @ApiProperty({ example: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b' }) id: string;
  @ApiProperty({ example: 'Green Grocer' }) name: string;
  @ApiProperty({ example: 'groceries' }) category: string;
  @ApiProperty({ type: [MerchantIdentifierDto] }) identifiers: MerchantIdentifierDto[];
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
}
