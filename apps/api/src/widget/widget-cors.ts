import type { Request, Response } from 'express';

/**
 * CORS of the widget API. Only exact origins an institution lists in the portal get CORS
 * headers; everything else gets none (the browser then refuses to hand the answer to the page).
 * A request from the service's own origin (the portal's live preview) needs none.
 */
export const CORS_MAX_AGE_SECONDS = 600;
const EXPOSED =
  'X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';

/** The request's Origin header when it is a cross-origin browser request, else null. */
export function crossOrigin(req: Request): string | null {
  const origin = req.header('origin');
  if (!origin || origin === 'null') return origin === 'null' ? 'null' : null;
  return origin === `${req.protocol}://${req.get('host')}` ? null : origin;
}

export function allowOrigin(res: Response, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED);
}

/** Caches (and the browser) must keep answers for different origins apart. */
export function varyOnOrigin(res: Response): void {
  res.vary('Origin');
}

export function allowPreflight(res: Response, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
  res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
}
