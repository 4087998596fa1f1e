// The operators' provider is configured before the api boots: a fixed loopback port for the
// local provider (this file's own), its issuer in OPERATOR_OIDC_*.
const PROVIDER_PORT = 41517;
const ISSUER = `http://127.0.0.1:${PROVIDER_PORT}`;
Object.assign(process.env, {
  OPERATOR_OIDC_ISSUER: ISSUER,
  OPERATOR_OIDC_CLIENT_ID: 'console',
  OPERATOR_OIDC_CLIENT_SECRET: 'console-secret-0123456789',
  OPERATOR_OIDC_ROLE_CLAIM: 'roles',
});

import { ChildProcess, spawn } from 'child_process';
import { createHash, randomBytes } from 'crypto';
import type { AddressInfo } from 'net';
import { join } from 'path';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { createWorld, startApi, TestApi, uniq, World } from '@app/testing';

/**
 * Single sign-on (docs/operators.md and docs/portal.md, "Single sign-on") against a local OpenID
 * Connect provider (oidc-provider, started here on a loopback port): operators and an
 * institution's staff sign in with the code flow and PKCE, are made at the first sign-in with
 * the mapped role and get the same session cookie as a password sign-in; a wrong state, nonce or
 * PKCE verifier is refused; an institution can turn password sign-in off.
 */
describe('single sign-on (OpenID Connect)', () => {
  let api: TestApi;
  let db: DataSource;
  let origin: string;
  let provider: ChildProcess;
  let w: World;
  const suffix = uniq('').toLowerCase();
  const accounts: Record<string, Record<string, unknown>> = {
    ana: {
      email: `ana-${suffix}@ops.test`,
      email_verified: true,
      name: 'Ana',
      roles: ['approver'],
    },
    bea: { email: `bea-${suffix}@ops.test`, roles: ['author', 'admin'] },
    nobody: { email: `nobody-${suffix}@ops.test`, roles: ['viewer'] },
    unverified: { email: `un-${suffix}@ops.test`, email_verified: false, roles: ['admin'] },
    carl: { email: `carl-${suffix}@bank.test`, groups: ['staff', 'bank-devs'] },
    dana: { email: `dana-${suffix}@bank.test`, groups: ['contractors'] },
  };

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    await api.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    w = await createWorld(api);
    provider = spawn(process.execPath, [join(__dirname, 'fixtures', 'oidc-provider.mjs')], {
      env: {
        ...process.env,
        OIDC_TEST_PROVIDER: JSON.stringify({
          port: PROVIDER_PORT,
          clients: [
            {
              client_id: 'console',
              client_secret: 'console-secret-0123456789',
              redirect_uris: [`${origin}/admin/api/v1/auth/oidc/callback`],
            },
            {
              client_id: 'bank-portal',
              client_secret: 'bank-secret-0123456789',
              redirect_uris: [`${origin}/portal/api/auth/oidc/${w.institution.id}/callback`],
            },
          ],
          accounts,
        }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      provider.once('exit', (code) => reject(new Error(`provider exited ${code}`)));
      provider.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    });
  });
  afterAll(async () => {
    provider?.kill('SIGTERM');
    await api?.close();
  });

  /**
   * The browser's round trip: the api's start (its flight cookie kept by `agent`), the provider's
   * redirects (automatic login as `who`) up to the redirect back to the api, then the api's
   * callback. `tamper` changes the authorization URL the browser follows; `back` the callback's.
   */
  async function signIn(
    agent: TestAgent,
    startPath: string,
    who: string,
    o: { tamper?: (u: URL) => void; back?: (u: URL) => void } = {},
  ) {
    const start = await agent.get(startPath).query({ login_hint: who }).expect(200);
    let url = new URL(start.body.authorization_url);
    expect(url.origin).toBe(ISSUER);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    o.tamper?.(url);
    const jar = new Map<string, string>();
    for (let hop = 0; hop < 10 && url.origin === ISSUER; hop++) {
      const res = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`provider answered ${res.status}: ${await res.text()}`);
      url = new URL(location, url);
    }
    expect(url.origin).toBe(origin);
    o.back?.(url);
    return { start, callback: await agent.get(url.pathname + url.search) };
  }

  const operatorAgent = () => request.agent(api.app.getHttpServer());
  const OP_START = '/admin/api/v1/auth/oidc/start';

  describe('operators', () => {
    it('signs in with the code flow and PKCE: made at the first sign-in with the claimed role, the console session cookie', async () => {
      const agent = operatorAgent();
      const { callback } = await signIn(agent, OP_START, 'ana');
      expect(callback.status).toBe(200);
      expect(callback.headers['content-type']).toMatch(/^text\/html/);
      expect(callback.text).toContain('url=/portal/console');
      const cookie = (callback.headers['set-cookie'] as unknown as string[]).find((c) =>
        c.startsWith('plo_operator_session='),
      );
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      expect(cookie).toMatch(/Path=\/admin\/api/);
      const me = await agent.get('/admin/api/v1/auth/me').expect(200);
      expect(me.body).toMatchObject({
        via: 'session',
        operator: { email: accounts.ana.email, name: 'Ana', role: 'approver' },
        csrf_token: expect.any(String),
      });
      const [entry] = await db.query(
        `SELECT actor_type, after FROM audit_log WHERE action = 'operator.create' AND resource_id = $1`,
        [me.body.operator.id],
      );
      expect(entry).toMatchObject({
        actor_type: 'operator',
        after: { role: 'approver', via: 'sso' },
      });
      // A cookie-authenticated write needs the CSRF header, as after a password sign-in.
      await agent.post('/admin/api/v1/auth/logout').expect(403);
      await agent
        .post('/admin/api/v1/auth/logout')
        .set('X-CSRF-Token', me.body.csrf_token)
        .expect(204);

      // The second sign-in finds the same operator.
      const again = operatorAgent();
      expect((await signIn(again, OP_START, 'ana')).callback.status).toBe(200);
      const me2 = await again.get('/admin/api/v1/auth/me').expect(200);
      expect(me2.body.operator.id).toBe(me.body.operator.id);
    });

    it('takes the first of admin, approver, author, support among the values; the role follows the claim', async () => {
      const agent = operatorAgent();
      expect((await signIn(agent, OP_START, 'bea')).callback.status).toBe(200);
      const me = await agent.get('/admin/api/v1/auth/me').expect(200);
      expect(me.body.operator.role).toBe('admin');
      // Changed here; the next sign-in puts back what the provider says, and the log says so.
      await db.query(`UPDATE operator SET role = 'support' WHERE id = $1`, [me.body.operator.id]);
      const next = operatorAgent();
      await signIn(next, OP_START, 'bea');
      expect((await next.get('/admin/api/v1/auth/me').expect(200)).body.operator.role).toBe(
        'admin',
      );
      const [change] = await db.query(
        `SELECT before, after FROM audit_log WHERE action = 'operator.role_change' AND resource_id = $1`,
        [me.body.operator.id],
      );
      expect(change).toMatchObject({ before: { role: 'support' }, after: { role: 'admin' } });
    });

    it('refuses a person without a role, an unverified e-mail, and a disabled operator', async () => {
      const none = await signIn(operatorAgent(), OP_START, 'nobody');
      expect(none.callback.status).toBe(403);
      expect(none.callback.body.error).toBe('sso_no_role');
      const unverified = await signIn(operatorAgent(), OP_START, 'unverified');
      expect(unverified.callback.status).toBe(403);
      expect(unverified.callback.body.error).toBe('sso_no_email');
      await db.query(`UPDATE operator SET status = 'disabled' WHERE email = $1`, [
        accounts.ana.email,
      ]);
      const disabled = await signIn(operatorAgent(), OP_START, 'ana');
      expect(disabled.callback.status).toBe(403);
      expect(disabled.callback.body.error).toBe('operator_disabled');
      await db.query(`UPDATE operator SET status = 'active' WHERE email = $1`, [
        accounts.ana.email,
      ]);
    });

    it('refuses a wrong state, another browser, a wrong nonce and a wrong PKCE verifier', async () => {
      const noSession = (r: { headers: Record<string, unknown> }) =>
        ((r.headers['set-cookie'] as string[] | undefined) ?? []).every(
          (c) => !c.startsWith('plo_operator_session=') || /plo_operator_session=;/.test(c),
        );

      const state = await signIn(operatorAgent(), OP_START, 'ana', {
        back: (u) => u.searchParams.set('state', 'not-the-state'),
      });
      expect(state.callback.status).toBe(400);
      expect(state.callback.body.error).toBe('sso_state_mismatch');
      expect(noSession(state.callback)).toBe(true);

      // The redirect back reaches a browser that did not start the sign-in (no flight cookie).
      let stolen = '';
      await signIn(operatorAgent(), OP_START, 'ana', {
        back: (u) => {
          stolen = u.pathname + u.search;
        },
      });
      const other = await operatorAgent().get(stolen);
      expect(other.status).toBe(400);
      expect(other.body.error).toBe('sso_no_flight');

      const nonce = await signIn(operatorAgent(), OP_START, 'ana', {
        tamper: (u) => u.searchParams.set('nonce', 'another-nonce-0123456789'),
      });
      expect(nonce.callback.status).toBe(400);
      expect(nonce.callback.body.error).toBe('sso_nonce_mismatch');
      expect(noSession(nonce.callback)).toBe(true);

      const otherVerifier = randomBytes(32).toString('base64url');
      const pkce = await signIn(operatorAgent(), OP_START, 'ana', {
        tamper: (u) =>
          u.searchParams.set(
            'code_challenge',
            createHash('sha256').update(otherVerifier).digest('base64url'),
          ),
      });
      expect(pkce.callback.status).toBe(400);
      expect(pkce.callback.body.error).toBe('sso_failed');
      expect(pkce.callback.body.message).toContain('invalid_grant');
      expect(noSession(pkce.callback)).toBe(true);

      // A code is good once: the flight cookie is spent by the first callback.
      const agent = operatorAgent();
      let back = '';
      const first = await signIn(agent, OP_START, 'ana', {
        back: (u) => {
          back = u.pathname + u.search;
        },
      });
      expect(first.callback.status).toBe(200);
      expect((await agent.get(back)).body.error).toBe('sso_no_flight');
    });

    it('returns only to a path of the portal', async () => {
      const evil = await signIn(
        operatorAgent(),
        `${OP_START}?return_to=https://evil.test/portal/`,
        'ana',
      );
      expect(evil.callback.text).toContain('url=/portal/console"');
      const page = await signIn(
        operatorAgent(),
        `${OP_START}?return_to=/portal/console/offers`,
        'ana',
      );
      expect(page.callback.text).toContain('url=/portal/console/offers"');
    });
  });

  describe("an institution's staff", () => {
    const admin = () => `Bearer ${api.operatorToken}`;
    const base = () => `/portal/api/auth/oidc/${w.institution.id}`;
    const settings = (over: Record<string, unknown> = {}) => ({
      issuer: ISSUER,
      client_id: 'bank-portal',
      client_secret: 'bank-secret-0123456789',
      role_claim: 'groups',
      role_map: { 'bank-admins': 'admin', 'bank-devs': 'developer', staff: 'member' },
      password_login: true,
      ...over,
    });

    it('PUT /institutions/{id}/sso stores the secret encrypted and never answers it; bad maps are 400', async () => {
      await api.http
        .get(`/admin/api/v1/institutions/${w.institution.id}/sso`)
        .set('Authorization', admin())
        .expect(404);
      const res = await api.http
        .put(`/admin/api/v1/institutions/${w.institution.id}/sso`)
        .set('Authorization', admin())
        .send(settings())
        .expect(200);
      expect(res.body).toMatchObject({
        client_secret_set: true,
        role_claim: 'groups',
        password_login: true,
      });
      expect(JSON.stringify(res.body)).not.toContain('bank-secret');
      const got = await api.http
        .get(`/admin/api/v1/institutions/${w.institution.id}/sso`)
        .set('Authorization', admin())
        .expect(200);
      expect(JSON.stringify(got.body)).not.toContain('bank-secret');
      const [stored] = await db.query(
        `SELECT client_secret FROM institution_sso WHERE institution_id = $1`,
        [w.institution.id],
      );
      expect(stored.client_secret).not.toContain('bank-secret');
      const [entry] = await db.query(
        `SELECT after::text AS t FROM audit_log WHERE action = 'sso.settings_changed' AND institution_id = $1`,
        [w.institution.id],
      );
      expect(entry.t).not.toContain('bank-secret');

      for (const bad of [
        settings({ role_map: { g: 'root' } }),
        settings({ role_map: {} }),
        settings({ issuer: 'http://idp.example' }),
      ])
        await api.http
          .put(`/admin/api/v1/institutions/${w.institution.id}/sso`)
          .set('Authorization', admin())
          .send(bad)
          .expect(400);
    });

    it('signs staff in through the institution provider: made at the first sign-in with the mapped role, the portal session', async () => {
      expect((await api.http.get(base()).expect(200)).body).toEqual({
        institution_name: w.institution.name,
        provider: `127.0.0.1:${PROVIDER_PORT}`,
      });
      const agent = request.agent(api.app.getHttpServer());
      const { callback } = await signIn(agent, `${base()}/start`, 'carl');
      expect(callback.status).toBe(200);
      expect(callback.text).toContain('url=/portal/"');
      const me = await agent.get('/portal/api/me').expect(200);
      expect(me.body.user).toMatchObject({
        email: accounts.carl.email,
        role: 'member', // "staff" comes first in the institution's map
        institution: { id: w.institution.id },
      });
      const activity = await agent.get('/portal/api/security-activity').expect(200);
      expect(activity.body.data[0]).toMatchObject({
        type: 'login.succeeded',
        actor: accounts.carl.email,
        details: { method: 'sso' },
      });
      const dana = await signIn(request.agent(api.app.getHttpServer()), `${base()}/start`, 'dana');
      expect(dana.callback.status).toBe(403);
      expect(dana.callback.body.error).toBe('sso_no_role');
      const wrongState = await signIn(
        request.agent(api.app.getHttpServer()),
        `${base()}/start`,
        'carl',
        {
          back: (u) => u.searchParams.set('state', 'x'),
        },
      );
      expect(wrongState.callback.body.error).toBe('sso_state_mismatch');
      // Another institution's flight does not open this one's callback.
      const other = await createWorld(api);
      await api.http
        .get(`/portal/api/auth/oidc/${other.institution.id}/start`)
        .expect(404)
        .expect((r) => expect(r.body.error).toBe('sso_not_configured'));
    });

    it('with password_login off, a correct password is refused with a clear error; SSO still signs in', async () => {
      await api.http
        .put(`/admin/api/v1/institutions/${w.institution.id}/sso`)
        .set('Authorization', admin())
        .send(settings({ password_login: false }))
        .expect(200);
      const res = await api.http.post('/portal/api/auth/login').send(w.admin).expect(403);
      expect(res.body.error).toBe('password_login_disabled');
      // A wrong password is still the usual 401: nothing tells the e-mail exists.
      const wrong = await api.http
        .post('/portal/api/auth/login')
        .send({ email: w.admin.email, password: 'not the password' })
        .expect(401);
      expect(wrong.body.error).toBe('invalid_credentials');
      const agent = request.agent(api.app.getHttpServer());
      expect((await signIn(agent, `${base()}/start`, 'carl')).callback.status).toBe(200);
      await agent.get('/portal/api/me').expect(200);
      await api.http
        .put(`/admin/api/v1/institutions/${w.institution.id}/sso`)
        .set('Authorization', admin())
        .send(settings({ password_login: true }))
        .expect(200);
      await api.http.post('/portal/api/auth/login').send(w.admin).expect(200);
    });
  });
});
