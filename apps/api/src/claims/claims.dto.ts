import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import {
  CLAIM_DECIDERS,
  CLAIM_DECISIONS,
  CLAIM_REASONS,
  CLAIM_STATUSES,
  MERCHANT_IDENTIFIER_TYPES,
} from '@app/domain';
import { PageQuery, PaginationDto } from '../common/pagination';

/** Opaque tokens and references: no control characters (the same rule as transaction events). */
const NO_CONTROL = /^[^\u0000-\u001f\u007f]+$/;
const NO_CONTROL_MESSAGE = 'must not contain control characters';

const UUID = '7c2e9a14-3b5d-4f6e-8a1b-2c3d4e5f6a7b';
const OFFER = '0e4c2b1a-7d6f-4e5a-9b8c-1d2e3f4a5b6c';
const REDEMPTION = '9b1d3c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e';

/**
 * The purchase as the cardholder's bank knows it, when it never reached us: checked by the same
 * rules as a posted transaction (parseTransactionEvent), then by simulate's evaluation.
 */
export class PurchaseEvidenceDto {
  @ApiProperty({ example: 42.9, description: 'Major units, as a transaction event carries it' })
  @IsNumber({}, { message: 'amount must be a number (major units, such as 12.5)' })
  amount: number;

  @ApiPropertyOptional({ example: 'USD', description: 'ISO 4217, as in a posted transaction' })
  @IsOptional()
  @IsString()
  currency?: string;

  @ApiProperty({
    example: 'CA-000123456',
    description: 'The card acceptor id (or other identifier) of the merchant',
  })
  @IsString()
  @Length(1, 200)
  merchant_identifier: string;

  @ApiPropertyOptional({ enum: MERCHANT_IDENTIFIER_TYPES, example: 'card_acceptor' })
  @IsOptional()
  @IsIn(MERCHANT_IDENTIFIER_TYPES)
  merchant_identifier_type?: string;

  @ApiProperty({ example: '2026-11-20T18:42:00Z', description: 'ISO 8601 with a zone' })
  @IsString()
  transacted_at: string;
}

export class FileClaimDto {
  @ApiProperty({
    example: 'chk_8f14e45fceea167a5a36dedd4bea2543',
    description: 'The cardholder the reward is missing for (the opaque token, never personal data)',
  })
  @IsDefined({ message: 'cardholder_token is required' })
  @IsString()
  @Length(1, 256)
  @Matches(NO_CONTROL, { message: `cardholder_token ${NO_CONTROL_MESSAGE}` })
  cardholder_token: string;

  @ApiProperty({
    format: 'uuid',
    example: OFFER,
    description: 'The offer the reward is claimed under',
  })
  @IsUUID('all', { message: 'offer_id must be a UUID' })
  offer_id: string;

  @ApiProperty({ example: 'txn-2026-11-21-000123', description: "The purchase's transaction_ref" })
  @IsString()
  @Length(1, 200)
  @Matches(NO_CONTROL, { message: `transaction_ref ${NO_CONTROL_MESSAGE}` })
  transaction_ref: string;

  @ApiPropertyOptional({
    type: PurchaseEvidenceDto,
    description:
      'Only used when the transaction_ref is not stored: the purchase is judged on it (`pending_review` for an operator, or `rejected`)',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => PurchaseEvidenceDto)
  purchase?: PurchaseEvidenceDto;

  @ApiPropertyOptional({
    example: 'Cardholder called on 2026-11-22; receipt seen.',
    maxLength: 1000,
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  note?: string;
}

export class ClaimDto {
  @ApiProperty({ format: 'uuid', example: UUID }) id: string;
  @ApiProperty({ enum: CLAIM_STATUSES, example: 'approved' }) status: string;
  @ApiProperty({
    type: [String],
    enum: CLAIM_REASONS,
    example: [],
    description:
      'Why a claim was rejected (codes; the vocabulary of simulate plus the claim barriers); empty otherwise',
  })
  reasons: string[];
  @ApiProperty({ format: 'uuid', example: OFFER }) offer_id: string;
  @ApiProperty({ example: 'txn-2026-11-21-000123' }) transaction_ref: string;
  @ApiProperty({ example: 'chk_****2543', description: 'First 4 + **** + last 4' })
  cardholder_token_masked: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: REDEMPTION,
    description:
      'approved and rewarded_other_offer: the redemption made; already_rewarded: the one that existed; else null',
  })
  redemption_id: string | null;
  @ApiProperty({
    type: String,
    enum: CLAIM_DECIDERS,
    nullable: true,
    example: 'rules',
    description: 'Who decided: the rules at once, or an operator; null while pending_review',
  })
  source_of_decision: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T09:15:00.000Z' }) created_at: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-22T09:15:00.120Z',
    description: 'null while pending_review',
  })
  decided_at: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Cardholder called on 2026-11-22; receipt seen.',
  })
  note: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: "The operator's note with the decision",
  })
  decision_note: string | null;
}

export class ClaimPageDto {
  @ApiProperty({ type: [ClaimDto] }) data: ClaimDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export class ClaimsQuery extends PageQuery {
  @ApiPropertyOptional({
    enum: CLAIM_STATUSES,
    example: 'pending_review',
    description: 'Only claims in this status',
  })
  @IsOptional()
  @IsIn(CLAIM_STATUSES)
  status?: string;
}

export class AdminClaimsQuery extends ClaimsQuery {
  @ApiPropertyOptional({
    format: 'uuid',
    example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11',
    description: "Only this institution's claims",
  })
  @IsOptional()
  @IsUUID()
  institution_id?: string;
}

/** An operator's view: the claim with its institution and the purchase evidence to review. */
export class AdminClaimDto extends ClaimDto {
  @ApiProperty({ format: 'uuid', example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' })
  institution_id: string;
  @ApiProperty({
    type: PurchaseEvidenceDto,
    nullable: true,
    description: 'The purchase evidence sent with the claim; null when the purchase was stored',
  })
  purchase: PurchaseEvidenceDto | null;
}

export class AdminClaimPageDto {
  @ApiProperty({ type: [AdminClaimDto] }) data: AdminClaimDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export class ClaimDecisionDto {
  @ApiProperty({ enum: CLAIM_DECISIONS, example: 'approve' })
  @IsIn(CLAIM_DECISIONS)
  decision: string;

  @ApiPropertyOptional({ example: 'Receipt matches the merchant and amount.', maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  note?: string;
}

export const CLAIM_EXAMPLE: ClaimDto = {
  id: UUID,
  status: 'approved',
  reasons: [],
  offer_id: OFFER,
  transaction_ref: 'txn-2026-11-21-000123',
  cardholder_token_masked: 'chk_****2543',
  redemption_id: REDEMPTION,
  source_of_decision: 'rules',
  created_at: '2026-11-22T09:15:00.000Z',
  decided_at: '2026-11-22T09:15:00.120Z',
  note: null,
  decision_note: null,
};
