// What every portal browser test starts from: its own institution with users, keys, a merchant
// and an offer made through the admin API (as an operator would), a local webhook receiver, and
// helpers to call the public and portal APIs. No test depends on another's data.
import { expect, test as base, type Page } from '@playwright/test';
import { Queue } from 'bullmq';
import { createHmac, randomBytes, timingSafeEqual } from 'crypto';
import { copyFileSync, mkdirSync } from 'fs';
import http from 'http';
import type { AddressInfo } from 'net';
import { join } from 'path';
import { Client } from 'pg';

const root = join(__dirname, '..', '..');
const shots = join(root, 'test-output', 'screenshots');
export const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;

const base_ = () => process.env.PORTAL_TEST_BASE_URL!;

// ------------------------------------------------------------------ HTTP helpers

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Headers;
}

export async function call(
  method: string,
  path: string,
  {
    token,
    body,
    headers = {},
  }: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(`${base_()}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json, headers: res.headers };
}

/** The answer's body, after checking its status. */
export async function must(p: Promise<Answer>, status: number, what: string) {
  const r = await p;
  expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(status);
  return r.body;
}

const op = (method: string, path: string, body?: unknown) =>
  call(method, `/admin/api/v1${path}`, { token: process.env.PORTAL_TEST_OPERATOR_TOKEN, body });

/** A portal session outside the browser (set-up through the portal API, CSRF header included). */
export async function portalSession(user: User) {
  const res = await fetch(`${base_()}/portal/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  expect(res.status, `portal login of ${user.email}`).toBe(200);
  const { csrf_token } = (await res.json()) as { csrf_token: string };
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return (method: string, path: string, body?: unknown) =>
    call(method, `/portal/api${path}`, { body, headers: { cookie, 'x-csrf-token': csrf_token } });
}

// ------------------------------------------------------------------ the institution

export interface User {
  email: string;
  password: string;
}

export interface Bank {
  id: string;
  name: string;
  admin: User;
  member: User;
  /** A key made by the operator, all scopes. */
  integrationKey: string;
  /** The card acceptor id of the bank's merchant (unique to this test). */
  acceptor: string;
  offerId: string;
}

/** An institution with an admin and a member, of the given plan (users only). */
export async function makeInstitution(name: string, plan: 'starter' | 'growth' | 'enterprise') {
  const tag = randomBytes(4).toString('hex');
  const inst = await must(op('POST', '/institutions', { name, plan }), 201, 'institution');
  const domain = `${name.toLowerCase().replace(/[^a-z]+/g, '-')}-${tag}.example`;
  const admin = { email: `ana.admin@${domain}`, password: PASSWORD };
  const member = { email: `marc.member@${domain}`, password: PASSWORD };
  for (const [u, role] of [
    [admin, 'admin'],
    [member, 'member'],
  ] as const)
    await must(op('POST', `/institutions/${inst.id}/users`, { ...u, role }), 201, `${role} user`);
  return { id: inst.id as string, name, admin, member, tag };
}

/** Another staff user of an institution, with the given role. */
export async function addStaffUser(institutionId: string, role: string): Promise<User> {
  const user = {
    email: `${role}-${randomBytes(4).toString('hex')}@staff.example`,
    password: PASSWORD,
  };
  await must(
    op('POST', `/institutions/${institutionId}/users`, { ...user, role }),
    201,
    `${role} user`,
  );
  return user;
}

async function makeBank(): Promise<Bank> {
  const inst = await makeInstitution('Demo Bank', 'growth');
  const integration = await must(
    op('POST', `/institutions/${inst.id}/api-keys`, { name: 'core banking' }),
    201,
    'key',
  );
  // A key that expires in 2 days: a reminder sweep writes an inbox alert for it.
  await must(
    op('POST', `/institutions/${inst.id}/api-keys`, {
      name: 'legacy batch job',
      expires_at: new Date(Date.now() + 2 * DAY - 3_600_000).toISOString(),
    }),
    201,
    'expiring key',
  );
  const acceptor = `CA-GREEN-${inst.tag}`;
  const merchant = await must(
    op('POST', '/merchants', {
      name: 'Green Grocer',
      category: 'groceries',
      identifiers: [{ type: 'card_acceptor', value: acceptor }],
    }),
    201,
    'merchant',
  );
  const now = Date.now();
  const offer = await must(
    op('POST', '/offers', {
      merchant_id: merchant.id,
      institution_ids: [inst.id],
      status: 'active',
      translations: {
        en: { title: '$5 back at Green Grocer', description: 'Spend $20 or more, get $5 back.' },
      },
      min_spend: 20,
      cashback_amount: 5,
      merchant_fee_amount: 1,
      currency: 'USD',
      starts_at: new Date(now - DAY).toISOString(),
      expires_at: new Date(now + 30 * DAY).toISOString(),
    }),
    201,
    'offer',
  );
  return {
    id: inst.id,
    name: inst.name,
    admin: inst.admin,
    member: inst.member,
    integrationKey: integration.key,
    acceptor,
    offerId: offer.id,
  };
}

/** One SQL statement on the test database, for states a browser cannot reach quickly. */
export async function sql(text: string, params: unknown[] = []) {
  const c = new Client({ connectionString: process.env.PORTAL_TEST_DB });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

/** Runs the worker's key-expiry reminder sweep now (it otherwise runs hourly). */
export async function runReminderSweep() {
  const url = new URL(process.env.PORTAL_TEST_REDIS_URL!);
  const q = new Queue('key-reminders', {
    connection: { host: url.hostname, port: Number(url.port || 6379) },
    prefix: process.env.PORTAL_TEST_QUEUE_PREFIX,
  });
  try {
    const job = await q.add('sweep', {}, { removeOnComplete: 50, removeOnFail: 50 });
    await expect
      .poll(async () => (await q.getJob(job.id!))?.finishedOn ?? 0, {
        message: 'the reminder sweep to finish',
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
  } finally {
    await q.close();
  }
}

// ------------------------------------------------------------------ webhook receiver

export interface Hook {
  url: string;
  received: { headers: http.IncomingHttpHeaders; body: string; verified: boolean }[];
  state: { secret: string | null; status: number };
}

/** A real receiver on 127.0.0.1 that verifies X-Service-Signature-V2 with the secret the test read from the portal. */
function receiver(): Promise<Hook & { server: http.Server }> {
  const received: Hook['received'] = [];
  const state: Hook['state'] = { secret: null, status: 200 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const ts = req.headers['x-service-timestamp'];
      let verified = false;
      if (state.secret && ts) {
        const expected = `sha256=${createHmac('sha256', state.secret).update(`${ts}.`).update(raw).digest('hex')}`;
        const got = String(req.headers['x-service-signature-v2'] ?? '');
        verified =
          got.length === expected.length &&
          timingSafeEqual(Buffer.from(got), Buffer.from(expected));
      }
      received.push({ headers: req.headers, body: raw.toString('utf8'), verified });
      res
        .writeHead(verified ? state.status : 401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: true, verified }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        received,
        state,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
      }),
    ),
  );
}

// ------------------------------------------------------------------ browser helpers

/** Signs in; waits for the dashboard unless the role has none (`dashboard` false). */
export async function login(p: Page, user: User, dashboard = true) {
  await p.goto('/portal/');
  await p.getByLabel('E-mail').fill(user.email);
  await p.getByLabel('Password').fill(user.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  if (dashboard) await p.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

export const nav = (p: Page, label: string) =>
  p
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: label, exact: false })
    .first()
    .click();

/** The screenshots docs/ and the README show (refreshed with UPDATE_DOC_SCREENSHOTS=1). */
const DOC_SHOTS = new Set([
  'dashboard',
  'keys',
  'widget',
  'webhook-options',
  'deliveries-search',
  'delivery',
  'lift',
  'webhook-phone',
  'delivery-phone',
  'statements',
  'claims',
  'claims-phone',
]);

/** A full-page screenshot into test-output/screenshots (and, when asked, the docs' copies). */
export async function shot(p: Page, name: string) {
  mkdirSync(shots, { recursive: true });
  const file = join(shots, `${name}.png`);
  await p.screenshot({ path: file, fullPage: true });
  // Every console page (desktop and phone) is in docs/operators.md's set.
  if (
    process.env.UPDATE_DOC_SCREENSHOTS === '1' &&
    (DOC_SHOTS.has(name) || name.startsWith('console-'))
  ) {
    mkdirSync(join(root, 'docs', 'screenshots'), { recursive: true });
    copyFileSync(file, join(root, 'docs', 'screenshots', `portal-${name}.png`));
  }
}

export const test = base.extend<{ bank: Bank; hook: Hook }>({
  baseURL: async ({}, use) => use(base_()),
  // Every test also checks that the page threw nothing uncaught.
  page: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await use(page);
    expect(errors, 'no uncaught errors in the page').toEqual([]);
  },
  bank: async ({}, use) => use(await makeBank()),
  hook: async ({}, use) => {
    const h = await receiver();
    await use(h);
    h.server.close();
  },
});

export { expect };
