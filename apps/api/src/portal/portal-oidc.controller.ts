import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
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
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import {
  callbackUrl,
  clearFlightCookie,
  FLIGHT_COOKIE,
  publicOrigin,
  setFlightCookie,
  SIGNED_IN_PAGE,
  signedInPage,
} from '../sso/sso-http';
import { SsoProviderDto, SsoStartDto, SsoStartQuery } from '../sso/sso.dto';
import { SsoService } from '../sso/sso.service';
import { StaffArea } from './portal-session.guard';
import { PortalSessionsService, SESSION_COOKIE } from './portal-sessions.service';

const base = (institutionId: string) => `/portal/api/auth/oidc/${institutionId}`;
const HOME = '/portal/';

/** Staff sign-in through their institution's identity provider (docs/portal.md, "Single sign-on"). */
@ApiTags('Portal')
@StaffArea('account')
@Controller('portal/api/auth/oidc/:institution_id')
export class PortalOidcController {
  constructor(
    private readonly sso: SsoService,
    private readonly sessions: PortalSessionsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'portalOidcProvider',
    summary: "The institution's identity provider, for the sign-in page's button",
    description:
      'Public: the institution name and its provider host when the institution has single sign-on; 404 `sso_not_configured` otherwise (also for an unknown institution).',
  })
  @ApiOkResponse({ type: SsoProviderDto })
  @ApiNotFoundResponse({ description: '`sso_not_configured`', type: ErrorResponseDto })
  provider(@Param('institution_id', uuidPipe) id: string): Promise<SsoProviderDto> {
    return this.sso.staffProvider(id);
  }

  @Get('start')
  @ApiOperation({
    operationId: 'portalOidcStart',
    summary: "Start a staff sign-in at the institution's identity provider (answers its URL)",
    description:
      "Answers the institution's provider's authorization URL for the browser to go to (authorization code flow with PKCE, S256; fresh state and nonce) and sets the short-lived `plo_sso_flight` cookie (HttpOnly, SameSite=Lax, 10 minutes) that binds the callback to this browser. The provider must redirect back to `<PUBLIC_BASE_URL>/portal/api/auth/oidc/{institution_id}/callback`. 404 `sso_not_configured`; 502 `sso_unavailable`.",
  })
  @ApiOkResponse({ type: SsoStartDto })
  @ApiNotFoundResponse({ description: '`sso_not_configured`', type: ErrorResponseDto })
  @ApiBadGatewayResponse({ description: '`sso_unavailable`', type: ErrorResponseDto })
  async start(
    @Param('institution_id', uuidPipe) id: string,
    @Query() q: SsoStartQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SsoStartDto> {
    const origin = publicOrigin(req, this.config);
    const { url, sealed } = await this.sso.staffStart(id, {
      redirectUri: `${origin}${base(id)}/callback`,
      returnTo: safeReturnTo(q.return_to, '/portal/', HOME),
      loginHint: q.login_hint,
    });
    setFlightCookie(res, sealed, `${base(id)}/callback`, this.secure(req));
    return { authorization_url: url };
  }

  @Get('callback')
  @ApiOperation({
    operationId: 'portalOidcCallback',
    summary:
      "The identity provider's redirect back: signs the staff user in (then on to the portal)",
    description:
      "Checks the answer against this browser's sign-in (state), exchanges the code with the PKCE verifier and checks the ID token (signature, issuer, audience, expiry, nonce). The user is found by the token's verified `email` within the institution, or made a portal user at this first sign-in, with the role the institution's `role_map` gives the `role_claim`'s values; an existing user's role follows it (audited). Then sets the `plo_session` cookie as the password sign-in does (`login.succeeded` with `method: sso` in the security activity) and answers a page that sends the browser to the portal (or the start's `return_to`). Errors: 400 `sso_no_flight`, `sso_state_mismatch`, `sso_nonce_mismatch`, `sso_denied`, `sso_failed`; 403 `sso_no_email`, `sso_no_role`, `institution_suspended`; 409 `sso_account_conflict` (the e-mail is a user of another institution).",
  })
  @ApiOkResponse(SIGNED_IN_PAGE)
  @ApiBadRequestResponse({
    description:
      '`sso_no_flight`, `sso_state_mismatch`, `sso_nonce_mismatch`, `sso_denied`, `sso_failed`',
    type: ErrorResponseDto,
    example: {
      error: 'sso_nonce_mismatch',
      message: 'The ID token is not for this sign-in (nonce differs).',
      request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
    },
  })
  @ApiForbiddenResponse({
    description: '`sso_no_email`, `sso_no_role`, `institution_suspended`',
    type: ErrorResponseDto,
  })
  @ApiConflictResponse({
    description: '`sso_account_conflict`, `sso_retry`',
    type: ErrorResponseDto,
  })
  @ApiNotFoundResponse({ description: '`sso_not_configured`', type: ErrorResponseDto })
  @ApiBadGatewayResponse({ description: '`sso_unavailable`', type: ErrorResponseDto })
  async callback(
    @Param('institution_id', uuidPipe) id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const origin = publicOrigin(req, this.config);
    const sealed: string | undefined = req.cookies?.[FLIGHT_COOKIE];
    clearFlightCookie(res, `${base(id)}/callback`);
    const { user, returnTo } = await this.sso.staffFinish(id, {
      callbackUrl: callbackUrl(req, origin),
      sealed,
      redirectUri: `${origin}${base(id)}/callback`,
      ip: req.ip,
    });
    const { token, expiresAt } = await this.sessions.startSession(user, req.ip, 'sso');
    res.cookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.secure(req),
      path: '/portal',
      expires: expiresAt,
    });
    res.status(200).type('html').send(signedInPage(returnTo));
  }

  private secure(req: Request): boolean {
    return this.config.isProduction || req.secure;
  }
}
