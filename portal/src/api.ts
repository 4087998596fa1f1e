/** Thin client for the portal API: same origin, session cookie, CSRF header on writes. */
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

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const res = await fetch(`/portal/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const json = await res.json().catch(() => ({ error: 'bad_response', message: `Unexpected response (${res.status})` }));
  if (!res.ok) throw new PortalApiError(res.status, json as ApiErrorBody);
  return json as T;
}
