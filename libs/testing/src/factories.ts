import { randomUUID } from 'crypto';
import { DAY_MS, Plan } from '@app/domain';
import { DataSource } from 'typeorm';
import type { TestApi } from './test-app';
import { clockPast } from './wait';

export interface WorldOptions {
  plan?: Plan;
  program?: Record<string, unknown>;
  rateLimits?: Record<string, number>;
  /** Scopes of the key; null = a key from before scopes. Default all three. */
  scopes?: string[] | null;
  keyExpiresAt?: string | null;
  /** Merchants to create, each with a unique card-acceptor id (and more identifiers if given). */
  merchants?: {
    name?: string;
    category?: string;
    identifiers?: { type: string; value: string }[];
  }[];
  /** Offers to create; merchant is an index into merchants. Fields as the admin API takes them. */
  offers?: (Record<string, unknown> & { merchant?: number })[];
}

export interface World {
  institution: { id: string; name: string; plan: string; program: Record<string, unknown> };
  /** Plaintext API key. */
  apiKey: string;
  keyId: string;
  admin: { email: string; password: string };
  member: { email: string; password: string };
  merchants: {
    id: string;
    name: string;
    category: string;
    identifiers: { type: string; value: string }[];
  }[];
  offers: (Record<string, unknown> & { id: string })[];
  /** Authorization header value for the key. */
  auth: string;
}

/** A unique suffix for names, identifiers and tokens, so test files never collide. */
export const uniq = (prefix = '') => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 12)}`;

/** The default offer body: active now, USD, $5 back on $20. Override any field. */
export function offerBody(
  merchantId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const now = Date.now();
  return {
    merchant_id: merchantId,
    status: 'active',
    translations: { en: { title: 'Test offer', description: 'Spend 20, get 5 back.' } },
    min_spend: 20,
    cashback_amount: 5,
    currency: 'USD',
    starts_at: new Date(now - DAY_MS).toISOString(),
    expires_at: new Date(now + 30 * DAY_MS).toISOString(),
    ...overrides,
  };
}

/**
 * Builds an institution + program + API key + admin and member logins (+ merchants and offers
 * targeted at it) through the admin API, as an operator would.
 */
export async function createWorld(api: TestApi, options: WorldOptions = {}): Promise<World> {
  const op = `Bearer ${api.operatorToken}`;
  const ok = <T>(res: { status: number; body: T }, status: number, what: string): T => {
    if (res.status !== status)
      throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const institution = ok(
    await api.http
      .post('/admin/api/v1/institutions')
      .set('Authorization', op)
      .send({
        name: uniq('Bank '),
        plan: options.plan ?? 'growth',
        program: options.program,
        rate_limits: options.rateLimits,
      }),
    201,
    'create institution',
  ) as World['institution'];

  const keyBody: Record<string, unknown> = { name: 'test key' };
  if (options.scopes !== undefined) keyBody.scopes = options.scopes;
  if (options.keyExpiresAt !== undefined) keyBody.expires_at = options.keyExpiresAt;
  const key = ok(
    await api.http
      .post(`/admin/api/v1/institutions/${institution.id}/api-keys`)
      .set('Authorization', op)
      .send(keyBody),
    201,
    'create key',
  ) as { id: string; key: string };

  const admin = { email: `${uniq('admin-')}@bank.test`, password: 'correct horse battery' };
  const member = { email: `${uniq('member-')}@bank.test`, password: 'correct horse battery' };
  for (const [u, role] of [
    [admin, 'admin'],
    [member, 'member'],
  ] as const) {
    ok(
      await api.http
        .post(`/admin/api/v1/institutions/${institution.id}/users`)
        .set('Authorization', op)
        .send({ ...u, role }),
      201,
      'create user',
    );
  }

  const merchants: World['merchants'] = [];
  for (const m of options.merchants ?? []) {
    merchants.push(
      ok(
        await api.http
          .post('/admin/api/v1/merchants')
          .set('Authorization', op)
          .send({
            name: m.name ?? uniq('Merchant '),
            category: m.category ?? 'groceries',
            identifiers: m.identifiers ?? [{ type: 'card_acceptor', value: uniq('CA') }],
          }),
        201,
        'create merchant',
      ) as World['merchants'][number],
    );
  }

  const offers: World['offers'] = [];
  for (const { merchant, ...o } of options.offers ?? []) {
    const merchantId = merchants[merchant ?? 0]?.id;
    if (!merchantId) throw new Error('createWorld: an offer needs a merchant');
    offers.push(
      ok(
        await api.http
          .post('/admin/api/v1/offers')
          .set('Authorization', op)
          .send(offerBody(merchantId, { institution_ids: [institution.id], ...o })),
        201,
        'create offer',
      ) as World['offers'][number],
    );
  }

  return {
    institution,
    apiKey: key.key,
    keyId: key.id,
    admin,
    member,
    merchants,
    offers,
    auth: `Bearer ${key.key}`,
  };
}

/** Logs a portal user in; returns an agent carrying the session cookie and the CSRF token. */
export async function portalLogin(api: TestApi, user: { email: string; password: string }) {
  const { default: request } = await import('supertest');
  const agent = request.agent(api.app.getHttpServer());
  const res = await agent.post('/portal/api/auth/login').send(user);
  if (res.status !== 200)
    throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { agent, csrf: res.body.csrf_token as string, user: res.body.user };
}

/** A named operator of the role, made with the break-glass token, with a personal token. */
export async function createOperator(
  api: TestApi,
  role: 'admin' | 'author' | 'approver' | 'support',
): Promise<{ id: string; email: string; password: string; token: string; auth: string }> {
  const op = `Bearer ${api.operatorToken}`;
  const email = `${uniq(`${role}-`)}@ops.test`;
  const password = 'correct horse battery';
  const created = await api.http
    .post('/admin/api/v1/operators')
    .set('Authorization', op)
    .send({ email, name: `Test ${role}`, password, role });
  if (created.status !== 201)
    throw new Error(`create operator: ${created.status} ${JSON.stringify(created.body)}`);
  const issued = await api.http
    .post(`/admin/api/v1/operators/${created.body.id}/tokens`)
    .set('Authorization', op)
    .send({ name: 'test' });
  if (issued.status !== 201)
    throw new Error(`create token: ${issued.status} ${JSON.stringify(issued.body)}`);
  return {
    id: created.body.id,
    email,
    password,
    token: issued.body.token,
    auth: `Bearer ${issued.body.token}`,
  };
}

/**
 * Adds an offer (the world's first by default) for the cardholder, then waits until the clock has
 * passed the enrollment: only a purchase after it qualifies. `body` adds to the add's body (a
 * card_token). Answers the add's body. The add must answer 201, or 200 with `existing` (the
 * cardholder had added it already); anything else throws.
 */
export async function enrollBeforePurchase(
  api: TestApi,
  w: World,
  token: string,
  {
    offerId = w.offers[0].id,
    body = {},
    existing = false,
  }: { offerId?: string; body?: Record<string, unknown>; existing?: boolean } = {},
): Promise<{ cardholder_offer_id: string }> {
  const res = await api.http
    .post(`/api/v1/offers/${offerId}/add`)
    .set('Authorization', w.auth)
    .send({ cardholder_token: token, ...body });
  if (res.status !== 201 && !(existing && res.status === 200))
    throw new Error(`add: ${res.status} ${JSON.stringify(res.body)}`);
  const [{ added_at }] = await api.app
    .get(DataSource)
    .query(`SELECT added_at FROM cardholder_offer WHERE id = $1`, [res.body.cardholder_offer_id]);
  await clockPast(added_at, 'the enrollment');
  return res.body;
}

/**
 * An institution, a merchant and the merchant's card-acceptor identifier, straight in the
 * database (for repository tests that need no api).
 */
export async function institutionWithMerchant(
  db: DataSource,
): Promise<{ institutionId: string; merchantId: string; acceptor: string }> {
  const [inst] = await db.query(
    `INSERT INTO institution (name, plan) VALUES ($1, 'starter') RETURNING id`,
    [uniq('Bank ')],
  );
  const [merchant] = await db.query(
    `INSERT INTO merchant (name, category) VALUES ($1, 'groceries') RETURNING id`,
    [uniq('M ')],
  );
  const acceptor = uniq('CA');
  await db.query(
    `INSERT INTO merchant_identifier (merchant_id, type, value) VALUES ($1, 'card_acceptor', $2)`,
    [merchant.id, acceptor],
  );
  return { institutionId: inst.id, merchantId: merchant.id, acceptor };
}
