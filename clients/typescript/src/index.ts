/**
 * Typed client of the offers service's public API: openapi-fetch over the types generated from
 * openapi/openapi.json (schema.ts, `npm run gen:client`). Paths, query parameters, bodies and
 * answers are checked by the compiler; nothing is hand-written per endpoint.
 *
 *   const api = createOffersClient({ baseUrl: 'https://offers.example', apiKey });
 *   const { data, error } = await api.GET('/api/v1/offers', {
 *     params: { query: { cardholder_token: 'chk_8f14e45f' } },
 *   });
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';

/** The one error body every endpoint answers with. */
export type ApiError = components['schemas']['ErrorResponseDto'];

export interface OffersClientOptions {
  /** The service's origin, e.g. https://offers.example (no trailing /api/v1). */
  baseUrl: string;
  /** An institution API key (`plo_live_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Another fetch (tests, proxies); the global fetch by default. */
  fetch?: (input: Request) => Promise<Response>;
}

export type OffersClient = Client<paths>;

export function createOffersClient(options: OffersClientOptions): OffersClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch });
  client.use({
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${options.apiKey}`);
      return request;
    },
  });
  return client;
}

/**
 * Every page of a keyset-paged list: follows `pagination.next_cursor` until it is null.
 * `fetchPage` asks for one page with the cursor (undefined for the first).
 */
export async function* allPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<{
    data?: { data: T[]; pagination: { next_cursor?: string | null } };
    error?: unknown;
  }>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const { data, error } = await fetchPage(cursor);
    if (!data) throw new Error(`page request failed: ${JSON.stringify(error)}`);
    yield* data.data;
    cursor = data.pagination.next_cursor ?? undefined;
  } while (cursor);
}
