/** Thin client for the portal API: same origin, session cookie, CSRF header on writes. */
import type { components } from './api-types';

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

export interface Page<T> {
  data: T[];
  pagination: { limit: number; next_cursor: string | null };
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

function fail(status: number, json: unknown, path: string): never {
  if (status === 401 && path !== '/auth/login' && path !== '/me') onUnauthorized?.();
  throw new PortalApiError(status, json as ApiErrorBody);
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(`/portal/api${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new PortalApiError(0, {
      error: 'network_error',
      message: 'The portal cannot be reached. Check your connection and try again.',
    });
  }
  if (res.status === 204) return undefined as T;
  const json = await res.json().catch(() => ({
    error: 'bad_response',
    message: `Unexpected response from the server (${res.status}).`,
  }));
  if (!res.ok) fail(res.status, json, path);
  return json as T;
}

/** Query string from defined values only. */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Multipart upload with byte progress (fetch cannot report upload progress). */
export function uploadFile<T>(
  path: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/portal/api${path}`);
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
    xhr.onload = () => {
      let json: unknown;
      try {
        json = JSON.parse(xhr.responseText);
      } catch {
        json = {
          error: 'bad_response',
          message: `Unexpected response from the server (${xhr.status}).`,
        };
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(json as T);
      else {
        try {
          fail(xhr.status, json, path);
        } catch (e) {
          reject(e);
        }
      }
    };
    const form = new FormData();
    form.append('file', file, file.name);
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
