/**
 * The portal API client: openapi-fetch over the types generated from openapi/openapi.json (one
 * file shared with the TypeScript client, clients/typescript/src/schema.ts), so a
 * path, parameter or response that changes on the server breaks the portal's type check.
 * Same origin, session cookie; the middleware adds the CSRF header on writes and turns every
 * non-2xx answer into one PortalApiError (the service's error shape).
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../clients/typescript/src/schema';

export type Schemas = components['schemas'];

export interface ApiErrorBody {
  error: string;
  message: string;
  details?: { field: string; message: string }[];
  request_id?: string;
}

export class PortalApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message);
  }
}

let csrfToken: string | null = null;
export const setCsrfToken = (t: string | null) => {
  csrfToken = t;
};

/** Called when any call answers 401: the session ended (expired, or logged out elsewhere). */
let onUnauthorized: (() => void) | null = null;
export const setUnauthorizedHandler = (fn: (() => void) | null) => {
  onUnauthorized = fn;
};

// Sign-in and the session probe answer 401 as a normal outcome, not as "your session ended".
const SESSION_PATHS = new Set(['/portal/api/auth/login', '/portal/api/me']);

async function toError(status: number, body: () => Promise<unknown>, path: string) {
  if (status === 401 && !SESSION_PATHS.has(path)) onUnauthorized?.();
  const json = await body().catch(() => undefined);
  const shaped =
    json && typeof json === 'object' && 'message' in json
      ? (json as ApiErrorBody)
      : { error: 'bad_response', message: `Unexpected response from the server (${status}).` };
  return new PortalApiError(status, shaped);
}

const middleware: Middleware = {
  onRequest({ request }) {
    request.headers.set('Accept', 'application/json');
    if (request.method !== 'GET' && csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
  async onResponse({ response, schemaPath }) {
    if (response.ok) return response;
    throw await toError(response.status, () => response.clone().json(), schemaPath);
  },
  onError({ error }) {
    if (error instanceof PortalApiError) return error;
    return new PortalApiError(0, {
      error: 'network_error',
      message: 'The portal cannot be reached. Check your connection and try again.',
    });
  },
};

export const client = createClient<paths>({
  baseUrl: typeof window === 'undefined' ? '' : window.location.origin,
  credentials: 'same-origin',
});
client.use(middleware);

/**
 * The body of a successful answer. Failures never get here (the middleware throws them), so this
 * only narrows openapi-fetch's result union; the type is the operation's 2xx response schema.
 */
export function ok<R extends { data?: unknown; error?: unknown }>(
  r: R,
): Exclude<R['data'], undefined> {
  if (r.error !== undefined) throw r.error;
  return r.data as Exclude<R['data'], undefined>;
}

type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/** The 2xx JSON body of an operation, by path and method. */
export type ResponseOf<
  P extends keyof paths,
  M extends 'get' | 'post' | 'put' | 'delete',
> = paths[P][M] extends { responses: infer Rs }
  ? Json<Rs[Extract<keyof Rs, 200 | 201 | 202>]>
  : never;

/** Multipart upload with byte progress (fetch cannot report upload progress). */
export function uploadFile(
  file: File,
  onProgress: (fraction: number) => void,
  options: { history?: boolean } = {},
): Promise<ResponseOf<'/portal/api/transactions/uploads', 'post'>> {
  const path = '/portal/api/transactions/uploads' satisfies keyof paths;
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('Accept', 'application/json');
    if (csrfToken) xhr.setRequestHeader('X-CSRF-Token', csrfToken);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () =>
      reject(
        new PortalApiError(0, {
          error: 'network_error',
          message: 'The upload was interrupted. Check your connection and try again.',
        }),
      );
    xhr.onload = async () => {
      const body = async () => JSON.parse(xhr.responseText) as unknown;
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve((await body()) as ResponseOf<'/portal/api/transactions/uploads', 'post'>);
        } catch {
          reject(await toError(xhr.status, body, path));
        }
      } else reject(await toError(xhr.status, body, path));
    };
    const form = new FormData();
    form.append('file', file, file.name);
    if (options.history) form.append('history', 'true');
    xhr.send(form);
  });
}

export function errorMessage(e: unknown): string {
  if (e instanceof PortalApiError) {
    const details = e.body.details?.map((d) => `${d.field} ${d.message}`).join('; ');
    return details ? `${e.body.message} (${details})` : e.body.message;
  }
  return 'Something went wrong. Try again.';
}
