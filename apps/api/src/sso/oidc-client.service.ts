import { HttpStatus, Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { AppConfig } from '@app/config';
import { decryptWithKey, encryptWithKey } from '@app/core';
import { ApiError } from '../common/api-error';

/** One OpenID Connect client: the provider's issuer and our client there. */
export interface OidcClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * What a sign-in in flight keeps between its start and the provider's redirect back, sealed
 * (AES-256-GCM under the `sso-flight` key) in a short-lived cookie of the browser that started it: that
 * binds the callback to that browser (no login CSRF) and needs no table.
 */
interface Flight {
  state: string;
  nonce: string;
  verifier: string;
  /** What the sign-in is for: `operator`, or `staff:<institution id>`. */
  audience: string;
  returnTo: string;
  expiresAt: number;
}

/** A sign-in in flight lives 10 minutes: time to sign in at the provider, not more. */
const FLIGHT_MS = 10 * 60_000;
/** A provider's discovery document is reused this long. */
const DISCOVERY_TTL_MS = 10 * 60_000;

const failed = (code: string, message: string) =>
  new ApiError(HttpStatus.BAD_REQUEST, code, message);

/**
 * The OpenID Connect code flow with PKCE (openid-client): the authorization URL with a fresh
 * state, nonce and code verifier, and the callback's checks (state against the sealed flight,
 * then the code exchanged with the verifier and the ID token's signature, issuer, audience,
 * expiry and nonce checked by the library). Providers over plain http are accepted only on a
 * loopback address (development and tests).
 */
@Injectable()
export class OidcClient {
  private readonly logger = new Logger('Oidc');
  private readonly configs = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

  constructor(private readonly appConfig: AppConfig) {}

  /** The provider's authorization URL, and the sealed flight for the cookie. */
  async start(
    settings: OidcClientSettings,
    o: { redirectUri: string; audience: string; returnTo: string; loginHint?: string },
  ): Promise<{ url: string; sealed: string }> {
    const config = await this.configuration(settings);
    const flight: Flight = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      audience: o.audience,
      returnTo: o.returnTo,
      expiresAt: Date.now() + FLIGHT_MS,
    };
    const params: Record<string, string> = {
      redirect_uri: o.redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      state: flight.state,
      nonce: flight.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(flight.verifier),
      code_challenge_method: 'S256',
    };
    if (o.loginHint) params.login_hint = o.loginHint;
    const url = oidc.buildAuthorizationUrl(config, params);
    return {
      url: url.href,
      sealed: encryptWithKey(JSON.stringify(flight), this.appConfig.keys.ssoFlight),
    };
  }

  /**
   * The provider's redirect back: the flight must be this browser's, unexpired, for this
   * audience, and carry the same state; then the code is exchanged (PKCE) and the ID token
   * checked (nonce included). Answers the ID token's claims and where to return.
   */
  async finish(
    settings: OidcClientSettings,
    o: { callbackUrl: URL; sealed: string | undefined; audience: string; redirectUri: string },
  ): Promise<{ claims: Record<string, unknown>; returnTo: string }> {
    const flight = this.open(o.sealed);
    if (!flight || flight.audience !== o.audience)
      throw failed(
        'sso_no_flight',
        'No sign-in was started in this browser (or it ended more than 10 minutes ago): start again.',
      );
    const providerError = o.callbackUrl.searchParams.get('error');
    if (providerError)
      throw failed('sso_denied', `The identity provider refused the sign-in (${providerError}).`);
    if (o.callbackUrl.searchParams.get('state') !== flight.state)
      throw failed(
        'sso_state_mismatch',
        'The answer is not for the sign-in this browser started (state differs): start again.',
      );
    const config = await this.configuration(settings);
    // The library compares redirect_uri of the exchange with the URL it is given.
    const current = new URL(o.redirectUri);
    current.search = o.callbackUrl.search;
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flight.verifier,
        expectedState: flight.state,
        expectedNonce: flight.nonce,
        idTokenExpected: true,
      });
    } catch (e) {
      const err = e as { message?: string; error?: string; code?: string; cause?: unknown };
      // The library's message is generic; the check that failed is in its cause's message.
      const cause = (err.cause as { message?: string } | undefined)?.message;
      const detail = err.error ?? cause ?? err.message ?? 'unknown';
      this.logger.warn({ err: detail, code: err.code }, 'OpenID Connect callback refused');
      if (/"nonce"/.test(cause ?? ''))
        throw failed('sso_nonce_mismatch', 'The ID token is not for this sign-in (nonce differs).');
      throw failed('sso_failed', `The identity provider's answer was refused: ${detail}.`);
    }
    const claims = tokens.claims();
    if (!claims) throw failed('sso_failed', 'The identity provider sent no ID token.');
    return { claims: { ...claims }, returnTo: flight.returnTo };
  }

  private open(sealed: string | undefined): Flight | null {
    if (!sealed) return null;
    try {
      const opened = decryptWithKey(sealed, this.appConfig.keys.ssoFlight);
      if (opened === null) return null;
      const f = JSON.parse(opened) as Flight;
      return f.expiresAt > Date.now() ? f : null;
    } catch {
      return null;
    }
  }

  /** The provider's metadata (discovery), kept a while; a provider that cannot be reached is 502. */
  private async configuration(s: OidcClientSettings): Promise<oidc.Configuration> {
    const key = `${s.issuer}\n${s.clientId}\n${s.clientSecret}`;
    const hit = this.configs.get(key);
    if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.config;
    const issuer = new URL(s.issuer);
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
    const config = oidc.discovery(
      issuer,
      s.clientId,
      { client_secret: s.clientSecret },
      oidc.ClientSecretPost(s.clientSecret),
      issuer.protocol === 'http:' && loopback
        ? { execute: [oidc.allowInsecureRequests], timeout: 10 }
        : { timeout: 10 },
    );
    this.configs.set(key, { at: Date.now(), config });
    try {
      return await config;
    } catch (e) {
      this.configs.delete(key);
      this.logger.warn({ err: (e as Error).message, issuer: s.issuer }, 'OpenID discovery failed');
      throw new ApiError(
        HttpStatus.BAD_GATEWAY,
        'sso_unavailable',
        'The identity provider cannot be reached or sent no usable configuration.',
      );
    }
  }
}
