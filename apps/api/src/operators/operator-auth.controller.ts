import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import type { AuditContext } from '@app/core';
import { Audit, CurrentOperator, OperatorAuth } from '../admin/operator.guard';
import {
  OPERATOR_COOKIE_PATH,
  OPERATOR_SESSION_COOKIE,
  OperatorCredentials,
} from '../auth/operator-credentials.service';
import type { OperatorPrincipal } from '../auth/operator-principal';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiError } from '../common/api-error';
import {
  ConfirmTotpDto,
  OperatorLoginDto,
  OperatorSessionDto,
  RecoveryCodesDto,
  TotpEnrolmentDto,
} from './operators.dto';
import { OperatorSessionsService } from './operator-sessions.service';

/** The console's sign-in: a session cookie scoped to the admin API, and its CSRF token. */
@ApiTags('Admin')
@Controller('admin/api/v1/auth')
export class OperatorAuthController {
  constructor(
    private readonly sessions: OperatorSessionsService,
    private readonly credentials: OperatorCredentials,
    private readonly config: AppConfig,
  ) {}

  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminLogin',
    summary:
      "Sign in to the console with an operator's e-mail and password; sets the session cookie",
    description:
      "Sets the `plo_operator_session` cookie (HttpOnly, SameSite=Strict, Path=/admin/api) and answers the CSRF token every cookie-authenticated write must send as `X-CSRF-Token`. The portal's lockout rules apply, per e-mail (known or not): after 5 failures within 15 minutes the e-mail is locked for 15 minutes (429 `login_locked` with Retry-After). A session ends after 30 minutes without a request, or 12 hours. Once the operator has enrolled a second factor, the request must also carry `totp_code` (the app's current code, each usable once) or `recovery_code` (each usable once): without one it is 401 `second_factor_required`, with a wrong one 401 `invalid_second_factor`; both count toward the lockout. A disabled operator gets 403 `operator_disabled` after a correct password.",
  })
  @ApiOkResponse({ type: OperatorSessionDto })
  @ApiUnauthorizedResponse({
    description:
      '`invalid_credentials` (same answer for unknown e-mail and wrong password), `second_factor_required`, `invalid_second_factor`',
    type: ErrorResponseDto,
  })
  @ApiForbiddenResponse({ description: '`operator_disabled`', type: ErrorResponseDto })
  @ApiTooManyRequestsResponse({
    description: '`login_locked` after repeated failures',
    type: ErrorResponseDto,
  })
  async login(
    @Body() dto: OperatorLoginDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OperatorSessionDto> {
    const s = await this.sessions.login(
      {
        email: dto.email,
        password: dto.password,
        totpCode: dto.totp_code,
        recoveryCode: dto.recovery_code,
      },
      (req.id as string | undefined) ?? null,
    );
    res.cookie(OPERATOR_SESSION_COOKIE, s.token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.config.isProduction || req.secure,
      path: OPERATOR_COOKIE_PATH,
      expires: s.expiresAt,
    });
    return { operator: s.operator, csrf_token: s.csrfToken, via: 'session' };
  }

  @Post('logout')
  @HttpCode(204)
  @OperatorAuth('read')
  @ApiOperation({
    operationId: 'adminLogout',
    summary: 'End the console session',
    description: 'Ends the session of the cookie and clears it; with a token, does nothing.',
  })
  @ApiNoContentResponse({ description: 'Signed out; the session cookie is cleared' })
  async logout(
    @CurrentOperator() op: OperatorPrincipal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    if (op.type === 'operator' && op.via === 'session') await this.sessions.logout(op.credentialId);
    res.clearCookie(OPERATOR_SESSION_COOKIE, { path: OPERATOR_COOKIE_PATH });
  }

  @Post('totp')
  @HttpCode(200)
  @OperatorAuth('own-tokens')
  @ApiOperation({
    operationId: 'adminStartTotp',
    summary: 'Start enrolling an authenticator app as the second factor',
    description:
      "For the signed-in operator: a new TOTP secret and its otpauth:// URI (show it as a QR code). Nothing changes until POST /admin/api/v1/auth/totp/confirm receives the app's first code. 409 `second_factor_enrolled` when one is already on (an admin resets it); 409 `not_an_operator` for the break-glass token.",
  })
  @ApiOkResponse({ type: TotpEnrolmentDto })
  @ApiConflictResponse({
    description: '`second_factor_enrolled`, `not_an_operator`',
    type: ErrorResponseDto,
  })
  startTotp(
    @CurrentOperator() op: OperatorPrincipal,
    @Audit() ctx: AuditContext,
  ): Promise<TotpEnrolmentDto> {
    return this.sessions.startTotp(named(op), ctx);
  }

  @Post('totp/confirm')
  @HttpCode(200)
  @OperatorAuth('own-tokens')
  @ApiOperation({
    operationId: 'adminConfirmTotp',
    summary: "Turn the second factor on with the app's first code; answers the recovery codes once",
    description:
      'From now on password sign-in also needs a TOTP code or a recovery code. The ten recovery codes are shown this once (only their hashes are stored); each works once. 400 `validation_failed` for a wrong code; 409 `no_enrolment` without a started enrolment.',
  })
  @ApiOkResponse({ type: RecoveryCodesDto })
  @ApiBadRequestResponse({ description: '`validation_failed`', type: ErrorResponseDto })
  @ApiConflictResponse({ description: '`no_enrolment`, `not_an_operator`', type: ErrorResponseDto })
  confirmTotp(
    @CurrentOperator() op: OperatorPrincipal,
    @Body() dto: ConfirmTotpDto,
    @Audit() ctx: AuditContext,
  ): Promise<RecoveryCodesDto> {
    return this.sessions.confirmTotp(named(op), dto.code, ctx);
  }

  @Get('me')
  @OperatorAuth()
  @ApiOperation({
    operationId: 'adminMe',
    summary: 'Who is signed in, and the CSRF token of the console session',
    description:
      'The operator (or `via: break_glass` with the operator token, which has no operator record) and, for a console session, the CSRF token to send as `X-CSRF-Token` on every write.',
  })
  @ApiOkResponse({ type: OperatorSessionDto })
  async me(
    @CurrentOperator() op: OperatorPrincipal,
    @Req() req: Request,
  ): Promise<OperatorSessionDto> {
    if (op.type === 'break_glass') return { csrf_token: null, via: 'break_glass' };
    const cookie: string | undefined = req.cookies?.[OPERATOR_SESSION_COOKIE];
    return {
      operator: await this.sessions.current(op.id),
      csrf_token: op.via === 'session' && cookie ? this.credentials.csrfFor(cookie) : null,
      via: op.via,
    };
  }
}

/** The operator's id; the break-glass token has no account to enrol. */
function named(op: OperatorPrincipal): string {
  if (op.type === 'break_glass')
    throw ApiError.conflict('not_an_operator', 'The break-glass token has no operator account.');
  return op.id;
}
