import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, IsString, Length, MaxLength, MinLength } from 'class-validator';
import { OPERATOR_ROLES, OPERATOR_STATUSES } from '@app/domain';
import { IsTimestamp } from '../common/validators';

const OP_ID = '7f8e2a1c-4b5d-4e6f-8a9b-0c1d2e3f4a5b';
const TOKEN_ID = '3a9c1e2b-5d4f-4a6b-9c8d-7e6f5a4b3c2d';
const AT = '2026-11-26T10:00:00.000Z';

export class CreateOperatorDto {
  @ApiProperty({ example: 'ana@ops.example', description: 'Sign-in name; stored lower-cased' })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'Ana Lima' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ example: 'correct horse battery staple', minLength: 12 })
  @IsString()
  @MinLength(12)
  @MaxLength(200)
  password: string;

  @ApiProperty({ enum: OPERATOR_ROLES, example: 'author' })
  @IsIn(OPERATOR_ROLES)
  role: string;
}

export class UpdateOperatorDto {
  @ApiPropertyOptional({ example: 'Ana Lima' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ enum: OPERATOR_ROLES, example: 'approver' })
  @IsOptional()
  @IsIn(OPERATOR_ROLES)
  role?: string;

  @ApiPropertyOptional({
    enum: OPERATOR_STATUSES,
    example: 'disabled',
    description:
      '`disabled` ends every console session and revokes every personal token of the operator, in the same transaction; `active` lets it sign in again (tokens stay revoked)',
  })
  @IsOptional()
  @IsIn(OPERATOR_STATUSES)
  status?: string;

  @ApiPropertyOptional({ example: 'another long passphrase', minLength: 12 })
  @IsOptional()
  @IsString()
  @MinLength(12)
  @MaxLength(200)
  password?: string;
}

export class OperatorDto {
  @ApiProperty({ example: OP_ID }) id: string;
  @ApiProperty({ example: 'ana@ops.example' }) email: string;
  @ApiProperty({ example: 'Ana Lima' }) name: string;
  @ApiProperty({ enum: OPERATOR_ROLES, example: 'author' }) role: string;
  @ApiProperty({ enum: OPERATOR_STATUSES, example: 'active' }) status: string;
  @ApiProperty({ type: String, nullable: true, example: AT }) last_login_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) disabled_at: string | null;
  @ApiProperty({
    example: true,
    description: 'Whether password sign-in asks for a TOTP code (or a recovery code)',
  })
  second_factor: boolean;
  @ApiProperty({ example: AT }) created_at: string;
  @ApiProperty({ example: AT }) updated_at: string;
}

export class CreateOperatorTokenDto {
  @ApiPropertyOptional({ example: 'deploy scripts', description: 'Defaults to `personal token`' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  name?: string;

  @ApiPropertyOptional({
    example: '2027-05-26T00:00:00Z',
    nullable: true,
    type: String,
    description: 'When the token stops working; absent or null: never',
  })
  @IsOptional()
  @IsTimestamp()
  expires_at?: string | null;
}

export class OperatorTokenDto {
  @ApiProperty({ example: TOKEN_ID }) id: string;
  @ApiProperty({ example: OP_ID }) operator_id: string;
  @ApiProperty({ example: 'deploy scripts' }) name: string;
  @ApiProperty({ example: 'plo_op_…x9Qa', description: 'The prefix and the last 4 characters' })
  prefix: string;
  @ApiProperty({ type: String, nullable: true, example: '2027-05-26T00:00:00.000Z' })
  expires_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) revoked_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) last_used_at: string | null;
  @ApiProperty({ example: AT }) created_at: string;
}

export class IssuedOperatorTokenDto extends OperatorTokenDto {
  @ApiProperty({
    example: 'plo_op_3q2-0V5oVQmJ3kT4c0rj6cXk1Yx8Wd2uJb7Hn9Lp5x9Qa',
    description: 'The token itself: shown this once, never again (only its hash is stored)',
  })
  token: string;
}

export class OperatorTokenListDto {
  @ApiProperty({ type: [OperatorTokenDto] }) data: OperatorTokenDto[];
}

export class OperatorLoginDto {
  @ApiProperty({ example: 'ana@ops.example' })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  password: string;

  @ApiPropertyOptional({
    example: '492039',
    description: 'The code of the authenticator app, once a second factor is enrolled',
  })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  totp_code?: string;

  @ApiPropertyOptional({
    example: 'k7q2m-x4p9a',
    description: 'Instead of totp_code: one of the recovery codes (each works once)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  recovery_code?: string;
}

export class TotpEnrolmentDto {
  @ApiProperty({
    example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    description: 'The shared secret (base32), for typing into an app by hand',
  })
  secret: string;
  @ApiProperty({
    example:
      'otpauth://totp/Offers%20console:ana%40ops.example?issuer=Offers%20console&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
    description: 'The URI an authenticator app reads (show it as a QR code)',
  })
  otpauth_uri: string;
}

export class ConfirmTotpDto {
  @ApiProperty({ example: '492039', description: "The app's current code" })
  @IsString()
  @MaxLength(20)
  code: string;
}

export class RecoveryCodesDto {
  @ApiProperty({
    example: ['k7q2m-x4p9a', 'b3n6r-w2d5e'],
    description: 'Ten single-use codes, shown this once (only their hashes are stored)',
  })
  recovery_codes: string[];
}

export class OperatorSessionDto {
  @ApiPropertyOptional({
    type: OperatorDto,
    description: 'The signed-in operator; absent for the break-glass token, which has no record',
  })
  operator?: OperatorDto;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'kq3Vb0f1mZt0…',
    description:
      'Send as X-CSRF-Token on every console write; null when signed in with a token rather than the console cookie',
  })
  csrf_token: string | null;
  @ApiProperty({
    enum: ['session', 'token', 'break_glass'],
    example: 'session',
    description: 'How the caller is signed in',
  })
  via: string;
}
