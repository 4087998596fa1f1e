import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadGatewayResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { safeReturnTo } from '@app/domain';
import {
  OPERATOR_COOKIE_PATH,
  OPERATOR_SESSION_COOKIE,
} from '../auth/operator-credentials.service';
import { ErrorResponseDto } from '../common/error-response.dto';
import {
  callbackUrl,
  clearFlightCookie,
  FLIGHT_COOKIE,
  publicOrigin,
  setFlightCookie,
  SIGNED_IN_PAGE,
  signedInPage,
} from '../sso/sso-http';
import { SsoStartDto, SsoStartQuery } from '../sso/sso.dto';
import { SsoService } from '../sso/sso.service';
import { OperatorSessionsService } from './operator-sessions.service';

const CALLBACK = '/admin/api/v1/auth/oidc/callback';
/** The console's page, where a signed-in operator lands unless it asked for another. */
const CONSOLE = '/portal/console';

/**
 * The console's single sign-on (docs/operators.md, "Single sign-on"): the OpenID Connect code
 * flow with PKCE against OPERATOR_OIDC_ISSUER, ending in the same session cookie as the
 * password sign-in.
 */
@ApiTags('Admin')
@Controller('admin/api/v1/auth/oidc')
export class OperatorOidcController {
  constructor(
    private readonly sso: SsoService,
    private readonly sessions: OperatorSessionsService,
    private readonly config: AppConfig,
  ) {}

  @Get('start')
  @ApiOperation({
    operationId: 'adminOidcStart',
    summary: "Start an operator's sign-in at the identity provider (answers its URL)",
    description:
      "Answers OPERATOR_OIDC_ISSUER's authorization URL for the browser to go to (authorization code flow with PKCE, S256; fresh state and nonce) and sets the short-lived cookie (`plo_sso_flight`, HttpOnly, SameSite=Lax, 10 minutes) that binds the callback to this browser. The provider redirects back to `<PUBLIC_BASE_URL>/admin/api/v1/auth/oidc/callback`. 404 `sso_not_configured` without OPERATOR_OIDC_ISSUER; 502 `sso_unavailable` when the provider's discovery document cannot be read.",
  })
  @ApiOkResponse({ type: SsoStartDto })
  @ApiNotFoundResponse({ description: '`sso_not_configured`', type: ErrorResponseDto })
  @ApiBadGatewayResponse({ description: '`sso_unavailable`', type: ErrorResponseDto })
  async start(
    @Query() q: SsoStartQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SsoStartDto> {
    const origin = publicOrigin(req, this.config);
    const { url, sealed } = await this.sso.operatorStart({
      redirectUri: origin + CALLBACK,
      returnTo: safeReturnTo(q.return_to, '/portal/', CONSOLE),
      loginHint: q.login_hint,
    });
    setFlightCookie(res, sealed, CALLBACK, this.secure(req));
    return { authorization_url: url };
  }

  @Get('callback')
  @ApiOperation({
    operationId: 'adminOidcCallback',
    summary:
      "The identity provider's redirect back: signs the operator in (then on to the console)",
    description:
      "Checks the answer against this browser's sign-in (state), exchanges the code with the PKCE verifier and checks the ID token (signature, issuer, audience, expiry, nonce). The operator is found by the token's verified `email`, or made at this first sign-in, with the role named by the OPERATOR_OIDC_ROLE_CLAIM claim (a role name or an array of them; admin, approver, author, support in that order); an existing operator's role follows the claim (audited). Then sets the `plo_operator_session` cookie exactly as POST /admin/api/v1/auth/login does (the provider is the second factor: the console's TOTP is not asked) and answers a page that sends the browser to the console (or the start's `return_to`). Errors: 400 `sso_no_flight` (no sign-in started in this browser, or expired), `sso_state_mismatch`, `sso_nonce_mismatch`, `sso_denied` (the provider answered an error), `sso_failed` (the code exchange or the ID token was refused, a wrong PKCE verifier included); 403 `sso_no_email`, `sso_no_role`, `operator_disabled`.",
  })
  @ApiOkResponse(SIGNED_IN_PAGE)
  @ApiBadRequestResponse({
    description:
      '`sso_no_flight`, `sso_state_mismatch`, `sso_nonce_mismatch`, `sso_denied`, `sso_failed`',
    type: ErrorResponseDto,
    example: {
      error: 'sso_state_mismatch',
      message:
        'The answer is not for the sign-in this browser started (state differs): start again.',
      request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
    },
  })
  @ApiForbiddenResponse({
    description: '`sso_no_email`, `sso_no_role`, `operator_disabled`',
    type: ErrorResponseDto,
  })
  @ApiConflictResponse({ description: '`sso_retry`', type: ErrorResponseDto })
  @ApiNotFoundResponse({ description: '`sso_not_configured`', type: ErrorResponseDto })
  @ApiBadGatewayResponse({ description: '`sso_unavailable`', type: ErrorResponseDto })
  async callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    const origin = publicOrigin(req, this.config);
    const sealed: string | undefined = req.cookies?.[FLIGHT_COOKIE];
    // The flight is used once, whatever the outcome.
    clearFlightCookie(res, CALLBACK);
    const { operator, returnTo } = await this.sso.operatorFinish({
      callbackUrl: callbackUrl(req, origin),
      sealed,
      redirectUri: origin + CALLBACK,
      requestId: (req.id as string | undefined) ?? null,
    });
    const s = await this.sessions.startSession(operator, (req.id as string | undefined) ?? null, {
      method: 'sso',
      second_factor: 'identity_provider',
    });
    res.cookie(OPERATOR_SESSION_COOKIE, s.token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.secure(req),
      path: OPERATOR_COOKIE_PATH,
      expires: s.expiresAt,
    });
    res.status(200).type('html').send(signedInPage(returnTo));
  }

  private secure(req: Request): boolean {
    return this.config.isProduction || req.secure;
  }
}
