import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { PORTAL_LEVELS, PORTAL_ROLES, PortalArea, PortalLevel, staffGrants } from '@app/domain';
import type { PortalPrincipal } from '../auth/principal';
import { ErrorResponseDto } from '../common/error-response.dto';
import { PortalAuth, StaffArea } from './portal-session.guard';
import { PortalSessionsService, SESSION_COOKIE } from './portal-sessions.service';

export class LoginDto {
  @ApiProperty({ example: 'admin@demo-bank.example' })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'demo-password-123' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  password: string;
}

export class PortalUserViewDto {
  @ApiProperty({ example: 'c0a8012e-7d1b-4d8a-9c55-8e2a4b1d2f3a' }) id: string;
  @ApiProperty({ example: 'admin@demo-bank.example' }) email: string;
  @ApiProperty({ enum: PORTAL_ROLES, example: 'admin' }) role: string;
  @ApiProperty({
    description:
      "The portal areas the role reaches and the highest level in each: `read`, `act` (everyday writes) or `manage` (settings, secrets, keys). The portal's navigation shows these areas only; the API enforces them.",
    type: 'object',
    additionalProperties: { type: 'string', enum: [...PORTAL_LEVELS] },
    example: { account: 'act', reporting: 'read', statements: 'read', offers: 'read' },
  })
  access: Partial<Record<PortalArea, PortalLevel>>;
  @ApiProperty({
    example: { id: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11', name: 'Demo Bank', plan: 'growth' },
  })
  institution: { id: string; name: string; plan: string };
}

export class SessionViewDto {
  @ApiProperty() user: PortalUserViewDto;
  @ApiProperty({ example: 'kq3...Zt0', description: 'Send as X-CSRF-Token on every portal write' })
  csrf_token: string;
}

@ApiTags('Portal')
@StaffArea('account')
@Controller('portal/api')
export class PortalAuthController {
  constructor(
    private readonly sessions: PortalSessionsService,
    private readonly config: AppConfig,
  ) {}

  @Post('auth/login')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'portalLogin',
    summary: 'Log in with e-mail and password; sets the session cookie',
    description:
      'Checks the e-mail and password and sets the `plo_session` cookie (HttpOnly). Every attempt counts toward a lockout per e-mail (known or not), decided before the password is checked: after 5 failures within 15 minutes the e-mail is locked for 15 minutes (429 `login_locked` with Retry-After), however many attempts run in parallel. Staff of a suspended institution get 403 `institution_suspended` after a correct password; staff of an institution that turned password sign-in off (single sign-on only) get 403 `password_login_disabled` after a correct password.',
  })
  @ApiOkResponse({ type: SessionViewDto })
  @ApiUnauthorizedResponse({
    description: '`invalid_credentials` (same answer for unknown e-mail and wrong password)',
    type: ErrorResponseDto,
  })
  @ApiForbiddenResponse({
    description:
      '`institution_suspended`: the right password, but the institution is suspended; `password_login_disabled`: the right password, but the institution signs its staff in through its identity provider only (GET /portal/api/auth/oidc/{institution_id}/start)',
    type: ErrorResponseDto,
    example: {
      error: 'institution_suspended',
      message:
        'Your institution is suspended, so portal sign-in is refused; contact the service operator.',
      request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
    },
  })
  @ApiTooManyRequestsResponse({
    description: '`login_locked` after repeated failures',
    type: ErrorResponseDto,
  })
  async login(
    @Body() dto: LoginDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SessionViewDto> {
    const { token, principal, expiresAt } = await this.sessions.login(
      dto.email,
      dto.password,
      req.ip,
    );
    res.cookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.config.isProduction || req.secure,
      path: '/portal',
      expires: expiresAt,
    });
    return view(principal);
  }

  @Post('auth/logout')
  @HttpCode(204)
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalLogout',
    summary: 'End the session',
    description: 'Ends the session and clears the cookie.',
  })
  @ApiNoContentResponse({ description: 'Signed out; the session cookie is cleared' })
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.sessions.logout(req.portalUser!.sessionId);
    res.clearCookie(SESSION_COOKIE, { path: '/portal' });
  }

  @Get('me')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalMe',
    summary: 'The logged-in user, institution and CSRF token',
    description:
      'Who is signed in, their role and institution, and the CSRF token to send as `X-CSRF-Token` on every write.',
  })
  @ApiOkResponse({ type: SessionViewDto })
  me(@Req() req: Request): SessionViewDto {
    return view(req.portalUser!);
  }
}

function view(p: PortalPrincipal): SessionViewDto {
  return {
    user: {
      id: p.userId,
      email: p.email,
      role: p.role,
      access: staffGrants(p.role),
      institution: { id: p.institutionId, name: p.institutionName, plan: p.plan },
    },
    csrf_token: p.csrfToken,
  };
}
