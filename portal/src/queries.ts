/**
 * Every server read of the portal, in one place: its query key and how it is fetched. Pages use
 * these with useQuery; mutations invalidate by the key prefixes below (`keys.apiKeys.all` covers
 * every page of the key list), so a write never leaves a stale list behind.
 */
import { keepPreviousData, QueryClient, queryOptions } from '@tanstack/react-query';
import { client, ok, PortalApiError, setCsrfToken } from './api';
import type { operations } from '../../clients/typescript/src/schema';

export const keys = {
  me: ['me'] as const,
  dashboard: (days: number) => ['dashboard', days] as const,
  apiKeys: {
    all: ['api-keys'] as const,
    list: (cursor?: string) => ['api-keys', 'list', { cursor }] as const,
  },
  activity: {
    all: ['security-activity'] as const,
    list: (cursor?: string) => ['security-activity', 'list', { cursor }] as const,
  },
  uploads: {
    all: ['uploads'] as const,
    lists: ['uploads', 'list'] as const,
    list: (cursor?: string) => ['uploads', 'list', { cursor }] as const,
    one: (id: string) => ['uploads', 'one', id] as const,
  },
  statements: {
    list: (granularity: StatementGranularity, cursor?: string) =>
      ['statements', 'list', { granularity, cursor }] as const,
    one: (id: string) => ['statements', 'one', id] as const,
  },
  claims: {
    all: ['claims'] as const,
    list: (status?: string, cursor?: string) => ['claims', 'list', { status, cursor }] as const,
    one: (id: string) => ['claims', 'one', id] as const,
    offers: ['claims', 'offers'] as const,
  },
  webhook: ['webhook'] as const,
  widget: ['widget'] as const,
  replays: ['webhook-replays'] as const,
  webhookStats: ['webhook-stats'] as const,
  deliveries: {
    all: ['deliveries'] as const,
    list: (filter: DeliveryFilter, cursor?: string) =>
      ['deliveries', 'list', { ...filter, cursor }] as const,
    one: (id: string) => ['deliveries', 'one', id] as const,
  },
  inbox: {
    all: ['inbox'] as const,
    list: (unread: boolean, cursor?: string) => ['inbox', 'list', { unread, cursor }] as const,
    unread: ['inbox', 'unread-count'] as const,
  },
};

export type StatementGranularity = 'day' | 'month';
export type ClaimStatus = NonNullable<
  operations['portalListClaims']['parameters']['query']
>['status'];

const DAY = 86_400_000;

export const queries = {
  /** The signed-in session, or null when there is none (any failure shows the sign-in page). */
  me: () =>
    queryOptions({
      queryKey: keys.me,
      queryFn: async ({ signal }) => {
        try {
          const session = ok(await client.GET('/portal/api/me', { signal }));
          setCsrfToken(session.csrf_token);
          return session;
        } catch {
          return null;
        }
      },
      staleTime: Infinity,
    }),
  dashboard: (days: number) =>
    queryOptions({
      queryKey: keys.dashboard(days),
      // Another page or window keeps the current one on screen until it arrives.
      placeholderData: keepPreviousData,
      queryFn: async ({ signal }) => {
        const to = new Date();
        const from = new Date(to.getTime() - days * DAY);
        return ok(
          await client.GET('/portal/api/dashboard', {
            params: { query: { from: from.toISOString(), to: to.toISOString() } },
            signal,
          }),
        );
      },
    }),
  apiKeys: (cursor?: string) =>
    queryOptions({
      queryKey: keys.apiKeys.list(cursor),
      placeholderData: keepPreviousData,
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/api-keys', {
            params: { query: { limit: 50, cursor } },
            signal,
          }),
        ),
    }),
  activity: (cursor?: string) =>
    queryOptions({
      queryKey: keys.activity.list(cursor),
      placeholderData: keepPreviousData,
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/security-activity', {
            params: { query: { limit: 50, cursor } },
            signal,
          }),
        ),
    }),
  uploads: (cursor?: string) =>
    queryOptions({
      queryKey: keys.uploads.list(cursor),
      placeholderData: keepPreviousData,
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/transactions/uploads', {
            params: { query: { limit: 20, cursor } },
            signal,
          }),
        ),
    }),
  upload: (id: string) =>
    queryOptions({
      queryKey: keys.uploads.one(id),
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/transactions/uploads/{id}', {
            params: { path: { id } },
            signal,
          }),
        ),
    }),
  statements: (granularity: StatementGranularity, cursor?: string) =>
    queryOptions({
      queryKey: keys.statements.list(granularity, cursor),
      placeholderData: keepPreviousData,
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/statements', {
            params: { query: { granularity, limit: 50, cursor } },
            signal,
          }),
        ),
    }),
  claims: (status?: ClaimStatus, cursor?: string) =>
    queryOptions({
      queryKey: keys.claims.list(status, cursor),
      placeholderData: keepPreviousData,
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/claims', {
            params: { query: { status, limit: 50, cursor } },
            signal,
          }),
        ),
    }),
  claim: (id: string) =>
    queryOptions({
      queryKey: keys.claims.one(id),
      queryFn: async ({ signal }) =>
        ok(await client.GET('/portal/api/claims/{id}', { params: { path: { id } }, signal })),
    }),
  /** The offers a claim may name (the institution's offers, first page). */
  claimableOffers: () =>
    queryOptions({
      queryKey: keys.claims.offers,
      queryFn: async ({ signal }) =>
        ok(await client.GET('/portal/api/offers', { params: { query: { limit: 200 } }, signal })),
    }),
  statement: (id: string) =>
    queryOptions({
      queryKey: keys.statements.one(id),
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/statements/{id}', {
            params: { path: { id } },
            signal,
          }),
        ),
    }),
  webhook: () =>
    queryOptions({
      queryKey: keys.webhook,
      queryFn: async ({ signal }) => ok(await client.GET('/portal/api/webhook', { signal })),
    }),
  replays: () =>
    queryOptions({
      queryKey: keys.replays,
      queryFn: async ({ signal }) =>
        ok(await client.GET('/portal/api/webhook/replays', { signal })),
    }),
  widget: () =>
    queryOptions({
      queryKey: keys.widget,
      queryFn: async ({ signal }) => ok(await client.GET('/portal/api/widget', { signal })),
    }),
  deliveries: (filter: DeliveryFilter, cursor?: string) =>
    queryOptions({
      queryKey: keys.deliveries.list(filter, cursor),
      placeholderData: keepPreviousData,
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/webhook/deliveries', {
            params: { query: { ...filter, limit: 25, cursor } },
            signal,
          }),
        ),
    }),
  webhookStats: () =>
    queryOptions({
      queryKey: keys.webhookStats,
      queryFn: async ({ signal }) => ok(await client.GET('/portal/api/webhook/stats', { signal })),
    }),
  delivery: (id: string) =>
    queryOptions({
      queryKey: keys.deliveries.one(id),
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/webhook/deliveries/{id}', {
            params: { path: { id } },
            signal,
          }),
        ),
    }),
  inbox: (unread: boolean, cursor?: string) =>
    queryOptions({
      queryKey: keys.inbox.list(unread, cursor),
      placeholderData: keepPreviousData,
      queryFn: async ({ signal }) =>
        ok(
          await client.GET('/portal/api/inbox', {
            params: { query: { limit: 25, cursor, unread: unread || undefined } },
            signal,
          }),
        ),
    }),
  unreadCount: () =>
    queryOptions({
      queryKey: keys.inbox.unread,
      queryFn: async ({ signal }) =>
        ok(await client.GET('/portal/api/inbox/unread-count', { signal })),
      // The navigation badge: new alerts appear without a reload.
      refetchInterval: 30_000,
    }),
};

type DeliveryQuery = NonNullable<operations['portalListWebhookDeliveries']['parameters']['query']>;
/** The delivery statuses the list can be filtered by. */
export type DeliveryStatusFilter = NonNullable<DeliveryQuery['status']>;
/** What the delivery list is searched and filtered by (absent: any). */
export type DeliveryFilter = Omit<DeliveryQuery, 'limit' | 'cursor'>;

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx will answer the same again; retry only what may pass on a second try.
        retry: (count, e) =>
          count < 2 && (!(e instanceof PortalApiError) || e.status === 0 || e.status >= 500),
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}
