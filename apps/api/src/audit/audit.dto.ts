import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { AUDIT_ACTOR_TYPES } from '@app/domain';
import { PageQuery } from '../common/pagination';
import { IsTimestamp } from '../common/validators';

const OP_ID = '7f8e2a1c-4b5d-4e6f-8a9b-0c1d2e3f4a5b';
const AT = '2026-11-26T10:00:00.000Z';

export class AuditQuery extends PageQuery {
  @ApiPropertyOptional({
    example: 'offer',
    description: 'Singular: offer, merchant, institution, operator, …',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  resource_type?: string;

  @ApiPropertyOptional({ example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  resource_id?: string;

  @ApiPropertyOptional({
    example: 'break_glass',
    description: 'An operator id, or `break_glass` or `system`',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  actor?: string;

  @ApiPropertyOptional({ example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  institution_id?: string;

  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z', description: 'Entries at or after' })
  @IsOptional()
  @IsTimestamp()
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'Entries before' })
  @IsOptional()
  @IsTimestamp()
  to?: string;
}

export class AuditActorDto {
  @ApiProperty({ enum: AUDIT_ACTOR_TYPES, example: 'operator' }) type: string;
  @ApiProperty({ type: String, nullable: true, example: OP_ID }) id: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'ana@ops.example' }) email: string | null;
}

export class AuditEntryDto {
  @ApiProperty({ example: '9d1e7c4a-2b3f-4c5d-8e6f-7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ example: AT }) at: string;
  @ApiProperty() actor: AuditActorDto;
  @ApiProperty({ example: 'offer.update' }) action: string;
  @ApiProperty({ example: 'offer' }) resource_type: string;
  @ApiProperty({ type: String, nullable: true, example: '0b6f3c2d-1a4e-4f5b-9c8d-7e6f5a4b3c2d' })
  resource_id: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) institution_id: string | null;
  @ApiProperty({
    nullable: true,
    type: 'object',
    additionalProperties: true,
    example: { priority: 0 },
    description: 'The resource before the change (secrets left out, cardholder tokens masked)',
  })
  before: unknown;
  @ApiProperty({
    nullable: true,
    type: 'object',
    additionalProperties: true,
    example: { priority: 5 },
    description: 'The resource after the change (secrets left out, cardholder tokens masked)',
  })
  after: unknown;
  @ApiProperty({ type: String, nullable: true, example: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21' })
  request_id: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: "The caller's address, on the entries of an institution's security activity",
  })
  ip: string | null;
  @ApiProperty({
    example: '5f1c…e9',
    description: "SHA-256 of the previous entry's hash and this entry (docs/operators.md)",
  })
  hash: string;
}
