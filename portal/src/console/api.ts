/**
 * The console's client of the admin API (/admin/api/v1): openapi-fetch over the same generated
 * types as the portal, with the operator session's own CSRF token and 401 handler (the operator
 * cookie is scoped to /admin/api, the portal's to /portal: the two sessions never mix). Every
 * non-2xx answer becomes the portal's PortalApiError, so pages show the API's own messages and
 * field details.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../clients/typescript/src/schema';
import { PortalApiError, type ApiErrorBody } from '../api';

export type Schemas = components['schemas'];

let csrfToken: string | null = null;
export const setConsoleCsrf = (t: string | null) => {
  csrfToken = t;
};

let onUnauthorized: (() => void) | null = null;
export const setConsoleUnauthorized = (fn: (() => void) | null) => {
  onUnauthorized = fn;
};

// Sign-in and the session probe answer 401 as an outcome, not as "your session ended".
const SESSION_PATHS = new Set(['/admin/api/v1/auth/login', '/admin/api/v1/auth/me']);

async function toError(status: number, json: unknown, path: string) {
  if (status === 401 && !SESSION_PATHS.has(path)) onUnauthorized?.();
  const shaped =
    json && typeof json === 'object' && 'message' in json
      ? (json as ApiErrorBody)
      : { error: 'bad_response', message: `Unexpected response from the server (${status}).` };
  return new PortalApiError(status, shaped);
}

const networkError = () =>
  new PortalApiError(0, {
    error: 'network_error',
    message: 'The console cannot reach the server. Check your connection and try again.',
  });

const middleware: Middleware = {
  onRequest({ request }) {
    if (!request.headers.has('Accept')) request.headers.set('Accept', 'application/json');
    if (request.method !== 'GET' && csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
  async onResponse({ response, schemaPath }) {
    if (response.ok) return response;
    const json = await response
      .clone()
      .json()
      .catch(() => undefined);
    throw await toError(response.status, json, schemaPath);
  },
  onError({ error }) {
    return error instanceof PortalApiError ? error : networkError();
  },
};

export const admin = createClient<paths>({
  baseUrl: typeof window === 'undefined' ? '' : window.location.origin,
  credentials: 'same-origin',
});
admin.use(middleware);

/**
 * A call to an admin route by its path, for routes the generated contract may not have yet
 * (the maker–checker routes land beside the console): same session, CSRF and error shape.
 */
export async function adminCall<T>(
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  let res: Response;
  try {
    res = await fetch(`/admin/api/v1${path}`, {
      method,
      credentials: 'same-origin',
      headers: {
        Accept: 'application/json',
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(method !== 'GET' && csrfToken ? { 'X-CSRF-Token': csrfToken } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw networkError();
  }
  const json = await res.json().catch(() => undefined);
  if (!res.ok) throw await toError(res.status, json, `/admin/api/v1${path}`);
  return { status: res.status, body: json as T };
}

/** The API's field errors by field (`details[].field`), for inline messages beside each input. */
export function fieldErrors(e: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (e instanceof PortalApiError)
    for (const d of e.body.details ?? []) out[d.field] = out[d.field] ?? d.message;
  return out;
}
