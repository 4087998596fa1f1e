/**
 * Every public route and the scope it needs. The scope-matrix test walks this table with keys
 * of each single scope; each issue that adds a public route adds its row here.
 */
export type MatrixScope = 'offers' | 'transactions' | 'reporting' | 'privacy' | 'claims';

/** Every scope a key may hold: the matrix issues a key of each alone. */
export const MATRIX_SCOPES: MatrixScope[] = [
  'offers',
  'transactions',
  'reporting',
  'privacy',
  'claims',
];

export interface RouteCase {
  method: 'get' | 'post';
  /** `:offer` is replaced by an existing offer id of the test world. */
  path: string;
  /** The scope the route needs, any one of a list, or none. */
  scope: MatrixScope | MatrixScope[] | null;
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
  { method: 'get', path: '/api/v1/cardholders/scope-matrix-ch/export', scope: 'privacy' },
  // An empty body: allowed, the answer is 400 and no erasure is stored.
  { method: 'post', path: '/api/v1/cardholders/erasure', scope: 'privacy', body: {} },
  {
    method: 'get',
    path: '/api/v1/cardholders/erasure/6f1c2b7e-3d4a-4e5f-9a8b-7c6d5e4f3a2b',
    scope: 'privacy',
  },
  {
    method: 'get',
    path: '/api/v1/transactions/scope-matrix-ref',
    scope: ['transactions', 'claims'],
  },
  {
    method: 'post',
    path: '/api/v1/claims',
    scope: 'claims',
    body: { cardholder_token: 'scope-matrix-ch', offer_id: ':offer', transaction_ref: 'sm-ref' },
  },
  { method: 'get', path: '/api/v1/claims', scope: 'claims' },
];
