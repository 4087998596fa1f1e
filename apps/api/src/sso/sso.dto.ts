import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { PORTAL_ROLES } from '@app/domain';

/** An https issuer, or http on a loopback address (development and tests). */
const ISSUER =
  /^(https:\/\/[^\s/?#]+(\/[^\s?#]*)?|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/[^\s?#]*)?)$/;

export class PutInstitutionSsoDto {
  @ApiProperty({
    example: 'https://login.demo-bank.example/realms/staff',
    description:
      "The provider's issuer URL (its discovery document is at /.well-known/openid-configuration under it); https, or http on a loopback address for development.",
  })
  @IsString()
  @MaxLength(500)
  @Matches(ISSUER, { message: 'issuer must be an https:// URL (http:// only on loopback)' })
  issuer: string;

  @ApiProperty({ example: 'offers-portal' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  client_id: string;

  @ApiProperty({
    example: 'kq3v…client-secret',
    description: 'Stored encrypted; never answered (the answer says `client_secret_set`).',
    writeOnly: true,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  client_secret: string;

  @ApiProperty({
    example: 'groups',
    description:
      'The ID token claim to map: a string or an array of strings (groups); a dotted name reads a nested claim (`realm_access.roles`).',
  })
  @IsString()
  @Matches(/^[A-Za-z0-9_:./-]{1,100}$/, { message: 'role_claim must be a claim name' })
  role_claim: string;

  @ApiProperty({
    description: `Claim value → portal role (${PORTAL_ROLES.join(', ')}), in order: a person with several mapped values gets the first entry's role; one with none is refused (403 \`sso_no_role\`).`,
    type: 'object',
    additionalProperties: { type: 'string', enum: [...PORTAL_ROLES] },
    example: {
      'bank-portal-admins': 'admin',
      'bank-developers': 'developer',
      'bank-staff': 'member',
    },
  })
  @IsObject()
  role_map: Record<string, string>;

  @ApiProperty({
    example: false,
    description:
      "Whether staff may still sign in with a password. When false, a correct password is answered 403 `password_login_disabled`: the institution's staff sign in through its provider only.",
  })
  @IsBoolean()
  password_login: boolean;
}

export class InstitutionSsoDto {
  @ApiProperty({ example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' }) institution_id: string;
  @ApiProperty({ example: 'https://login.demo-bank.example/realms/staff' }) issuer: string;
  @ApiProperty({ example: 'offers-portal' }) client_id: string;
  @ApiProperty({ example: true, description: 'A client secret is stored (it is never answered).' })
  client_secret_set: boolean;
  @ApiProperty({ example: 'groups' }) role_claim: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: [...PORTAL_ROLES] },
    example: { 'bank-portal-admins': 'admin', 'bank-staff': 'member' },
  })
  role_map: Record<string, string>;
  @ApiProperty({ example: false }) password_login: boolean;
  @ApiProperty({ example: '2026-11-26T10:00:00.000Z' }) updated_at: string;
}

/** The start of a sign-in: where to come back to, and a hint for the provider's login form. */
export class SsoStartQuery {
  @ApiPropertyOptional({
    example: '/portal/console',
    description:
      'A path of this service to land on after signing in (under /portal); anything else is ignored.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  return_to?: string;

  @ApiPropertyOptional({
    example: 'ana@demo-bank.example',
    description: 'Passed to the provider as `login_hint` (prefills its sign-in form).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  login_hint?: string;
}

export class SsoProviderDto {
  @ApiProperty({ example: 'Demo Bank' }) institution_name: string;
  @ApiProperty({
    example: 'login.demo-bank.example',
    description: "The identity provider's host, for the sign-in button.",
  })
  provider: string;
}

export class SsoStartDto {
  @ApiProperty({
    example:
      'https://login.demo-bank.example/realms/staff/protocol/openid-connect/auth?client_id=offers-portal&response_type=code&scope=openid+email+profile&code_challenge=…&code_challenge_method=S256&state=…&nonce=…&redirect_uri=…',
    description:
      "The provider's authorization URL: send the browser there (`location.href = authorization_url`). The same answer set the short-lived flight cookie the callback needs.",
  })
  authorization_url: string;
}
