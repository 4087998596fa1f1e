import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';

/** The cookie that carries a sign-in in flight (sealed) from its start to the callback. */
export const FLIGHT_COOKIE = 'plo_sso_flight';

/**
 * The api's public origin: PUBLIC_BASE_URL, else the request's (behind a proxy, TRUST_PROXY makes
 * it the forwarded one). The redirect URI registered at the provider is this plus the callback.
 */
export function publicOrigin(req: Request, config: AppConfig): string {
  if (config.publicBaseUrl) return config.publicBaseUrl.replace(/\/+$/, '');
  return `${req.protocol}://${req.get('host')}`;
}

/**
 * SameSite=Lax, not Strict: the provider's redirect back is a navigation from another site,
 * which a Strict cookie would not join. HttpOnly, only for the callback's path, 10 minutes.
 */
export function setFlightCookie(
  res: Response,
  sealed: string,
  path: string,
  secure: boolean,
): void {
  res.cookie(FLIGHT_COOKIE, sealed, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path,
    maxAge: 10 * 60_000,
  });
}

export function clearFlightCookie(res: Response, path: string): void {
  res.clearCookie(FLIGHT_COOKIE, { path });
}

/** The URL the provider redirected the browser to (its query: code, state, or error). */
export function callbackUrl(req: Request, origin: string): URL {
  return new URL(req.originalUrl, origin);
}

/** The callback's page: signed in, on to `returnTo` (a checked path of this origin). */
export function signedInPage(returnTo: string): string {
  const to = returnTo.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${to}"><title>Signed in</title></head><body><p>Signed in. <a href="${to}">Continue</a></p></body></html>`;
}

/** The callback's answer in OpenAPI: the page above. */
export const SIGNED_IN_PAGE = {
  description:
    'Signed in: the session cookie is set, and this small HTML page sends the browser on (meta refresh) to the page it started from',
  content: {
    'text/html': {
      schema: { type: 'string' as const },
      example:
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/portal/console"><title>Signed in</title></head><body><p>Signed in. <a href="/portal/console">Continue</a></p></body></html>',
    },
  },
};
