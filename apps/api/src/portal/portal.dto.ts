import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
} from 'class-validator';
import { SCOPES, UPLOAD_STATUSES } from '@app/domain';
import { PageQuery, PaginationDto } from '../common/pagination';
import { IsTimestamp } from '../common/validators';

const T = '2026-11-21T10:00:00.000Z';
const UUID = '9a1f2c3d-1111-4a4a-9b9b-123456789abc';

// ---------------------------------------------------------------- API keys

export const KEY_STATES = ['active', 'expiring_soon', 'expired', 'revoked'] as const;

export class PortalCreateApiKeyDto {
  @ApiProperty({
    example: 'production backend',
    description: 'What the key is for, so the team recognises it later',
  })
  @IsString()
  @Length(1, 100)
  name: string;

  @ApiProperty({
    enum: SCOPES,
    isArray: true,
    example: ['offers', 'transactions'],
    description:
      'At least one scope. `privacy` (erasure and export of cardholder data) is only granted by name, by an admin',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SCOPES.length)
  @ArrayUnique()
  @IsIn(SCOPES, { each: true })
  scopes: string[];

  @ApiPropertyOptional({
    example: '2027-11-21T00:00:00Z',
    description:
      'When the key stops working. Defaults to one year from now; must lie in the future and at most two years ahead.',
  })
  @IsOptional()
  @IsTimestamp()
  expires_at?: string;
}

export class PortalApiKeyDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: 'production backend' }) name: string;
  @ApiProperty({
    example: 'plo_live_…x9Qa',
    description: 'Non-secret hint: prefix and last 4 characters',
  })
  prefix: string;
  @ApiProperty({ example: ['offers', 'transactions'], enum: SCOPES, isArray: true })
  scopes: string[];
  @ApiProperty({ example: '2027-11-21T10:00:00.000Z', nullable: true, type: String }) expires_at:
    string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) revoked_at: string | null;
  @ApiProperty({
    example: '2026-11-21T11:02:00.000Z',
    nullable: true,
    type: String,
    description: 'Updated at most once a minute',
  })
  last_used_at: string | null;
  @ApiProperty({ example: T }) created_at: string;
  @ApiProperty({
    example: 'ana@bank.example',
    nullable: true,
    type: String,
    description: 'Portal user who created it (null: an operator)',
  })
  created_by: string | null;
  @ApiProperty({
    enum: KEY_STATES,
    example: 'active',
    description: '`expiring_soon`: expires within 14 days',
  })
  state: (typeof KEY_STATES)[number];
  @ApiProperty({
    example: 365,
    nullable: true,
    type: Number,
    description: 'Whole days until expiry (negative once expired); null without expiry',
  })
  days_to_expiry: number | null;
}

export class PortalApiKeyPageDto {
  @ApiProperty({ type: [PortalApiKeyDto] }) data: PortalApiKeyDto[];
  @ApiProperty() pagination: PaginationDto;
}

export class PortalIssuedApiKeyDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({
    example: 'plo_live_3q2V8m0pQ1v2Zt0cXk0y1o9rBvS7c2rA7w0kq3jYx9Qa',
    description: 'The plaintext key: shown this once, never again',
  })
  key: string;
  @ApiProperty({ example: 'production backend' }) name: string;
  @ApiProperty({ example: 'plo_live_…x9Qa' }) prefix: string;
  @ApiProperty({ example: ['offers', 'transactions'], enum: SCOPES, isArray: true })
  scopes: string[];
  @ApiProperty({ example: '2027-11-21T10:00:00.000Z', nullable: true, type: String }) expires_at:
    string | null;
  @ApiProperty({ example: T }) created_at: string;
}

// ---------------------------------------------------------------- security activity

export class SecurityEventDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({
    example: 'api_key.created',
    description:
      'api_key.created, api_key.revoked, webhook.secret_rotated, webhook.previous_secret_expired, webhook.event_types_changed, webhook.test_sent, webhook.replay_started, webhook.headers_changed, webhook.rate_cap_changed, webhook.resumed, webhook.client_certificate_changed, webhook.url_changed, cardholder.erasure_requested, cardholder.erased, login.succeeded, login.failed, login.locked',
  })
  type: string;
  @ApiProperty({
    example: 'ana@bank.example',
    description: "A portal user's e-mail, `operator` or `system`",
  })
  actor: string;
  @ApiProperty({ example: { key_id: UUID, name: 'production backend', prefix: 'plo_live_…x9Qa' } })
  details: Record<string, unknown>;
  @ApiProperty({ example: '203.0.113.7', nullable: true, type: String }) ip: string | null;
  @ApiProperty({ example: T }) created_at: string;
}

export class SecurityEventPageDto {
  @ApiProperty({ type: [SecurityEventDto] }) data: SecurityEventDto[];
  @ApiProperty() pagination: PaginationDto;
}

// ---------------------------------------------------------------- inbox

export class InboxQueryDto extends PageQuery {
  @ApiPropertyOptional({ example: true, description: 'Only unread messages' })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  unread?: boolean;
}

export class InboxMessageDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: 'api_key.expiring', description: 'api_key.expiring, webhook.failed, …' })
  kind: string;
  @ApiProperty({ example: 'API key "production backend" expires in 3 days' }) title: string;
  @ApiProperty({
    example: 'Create a new key with the same scopes, deploy it, then revoke the old one.',
  })
  body: string;
  @ApiProperty({ example: null, nullable: true, type: String }) read_at: string | null;
  @ApiProperty({ example: T }) created_at: string;
}

export class InboxPageDto {
  @ApiProperty({ type: [InboxMessageDto] }) data: InboxMessageDto[];
  @ApiProperty() pagination: PaginationDto;
  @ApiProperty({ example: 2, description: 'Unread messages of the institution (all pages)' })
  unread_count: number;
}

export class UnreadCountDto {
  @ApiProperty({ example: 2 }) unread_count: number;
}

export class InboxReadDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: T }) read_at: string;
  @ApiProperty({ example: 1 }) unread_count: number;
}

// ---------------------------------------------------------------- CSV uploads

export class InvalidLineErrorDto {
  @ApiProperty({ example: 'amount' }) field: string;
  @ApiProperty({ example: 'must be a positive number (major units, such as 12.5)' })
  message: string;
}

export class InvalidLineDto {
  @ApiProperty({ example: 4, description: 'Physical line of the file; the header is line 1' })
  line: number;
  @ApiProperty({ type: [InvalidLineErrorDto] }) errors: InvalidLineErrorDto[];
}

export class UploadAcceptedDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: 'queued', enum: UPLOAD_STATUSES })
  status: string;
}

export class UploadSummaryDto {
  @ApiProperty({ example: UUID }) id: string;
  @ApiProperty({ example: 'transactions-2026-11-20.csv' }) filename: string;
  @ApiProperty({ example: 1048576 }) size_bytes: number;
  @ApiProperty({ example: 'completed', enum: UPLOAD_STATUSES })
  status: string;
  @ApiProperty({ example: 1000, description: 'Data rows read so far (blank lines not included)' })
  rows_processed: number;
  @ApiProperty({
    example: 1000,
    nullable: true,
    type: Number,
    description: 'Data rows in the file; null until the worker has counted them',
  })
  rows_total: number | null;
  @ApiProperty({ example: 990 }) accepted: number;
  @ApiProperty({
    example: 6,
    description: 'Rows whose transaction_ref was already stored, or appeared earlier in the file',
  })
  duplicates: number;
  @ApiProperty({
    example: 4,
    description: 'Rows refused (their lines are listed in `invalid`, up to the first 1,000)',
  })
  invalid_count: number;
  @ApiProperty({ example: 2 }) blank_lines_skipped: number;
  @ApiProperty({
    example: null,
    nullable: true,
    type: String,
    description: 'Why the file failed as a whole (status failed)',
  })
  error_message: string | null;
  @ApiProperty({ example: 'ana@bank.example', nullable: true, type: String }) uploaded_by:
    string | null;
  @ApiProperty({ example: T }) created_at: string;
  @ApiProperty({ example: T, nullable: true, type: String }) started_at: string | null;
  @ApiProperty({ example: T, nullable: true, type: String }) completed_at: string | null;
}

export class UploadDto extends UploadSummaryDto {
  @ApiProperty({
    type: [InvalidLineDto],
    description: 'Refused rows by physical line number (first 1,000)',
  })
  invalid: InvalidLineDto[];
}

export class UploadPageDto {
  @ApiProperty({ type: [UploadSummaryDto] }) data: UploadSummaryDto[];
  @ApiProperty() pagination: PaginationDto;
}
