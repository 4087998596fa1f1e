/**
 * Every public route and the scope it needs. The scope-matrix test walks this table with keys
 * of each single scope; each issue that adds a public route adds its row here.
 */
export interface RouteCase {
  method: 'get' | 'post';
  /** `:offer` is replaced by an existing offer id of the test world. */
  path: string;
  scope: 'offers' | 'transactions' | 'reporting' | null;
  body?: unknown;
}

export const PUBLIC_ROUTES: RouteCase[] = [
  { method: 'get', path: '/api/v1/me', scope: null },
  { method: 'get', path: '/api/v1/offers?cardholder_token=scope-matrix-ch', scope: 'offers' },
  {
    method: 'post',
    path: '/api/v1/offers/:offer/add',
    scope: 'offers',
    body: { cardholder_token: 'scope-matrix-ch' },
  },
  {
    method: 'post',
    path: '/api/v1/cardholder-sessions',
    scope: 'offers',
    body: { cardholder_token: 'scope-matrix-ch' },
  },
  { method: 'post', path: '/api/v1/transactions', scope: 'transactions', body: {} },
  {
    method: 'post',
    path: '/api/v1/transactions/batch',
    scope: 'transactions',
    body: { transactions: [] },
  },
  { method: 'post', path: '/api/v1/transactions/simulate', scope: 'transactions', body: {} },
  {
    method: 'post',
    path: '/api/v1/merchants/resolve',
    scope: 'transactions',
    body: { identifiers: [] },
  },
  { method: 'get', path: '/api/v1/reporting/redemptions', scope: 'reporting' },
  { method: 'get', path: '/api/v1/reporting/settlements', scope: 'reporting' },
  { method: 'get', path: '/api/v1/reporting/funnel', scope: 'reporting' },
  { method: 'get', path: '/api/v1/statements?granularity=day', scope: 'reporting' },
];
