import request from 'supertest';
import { DataSource } from 'typeorm';
import { totpCode } from '@app/domain';
import { createOperator, createWorld, startApi, TestApi, uniq, World } from '@app/testing';

type Role = 'admin' | 'author' | 'approver' | 'support';
const ROLES: Role[] = ['admin', 'author', 'approver', 'support'];

/**
 * Named operators (docs/operators.md): each role allowed or refused on representative routes,
 * personal tokens, disabling, the console's sign-in with CSRF, lockout and idle expiry.
 */
describe('operators: roles, tokens, console sessions', () => {
  let api: TestApi;
  let db: DataSource;
  let w: World;
  const ops = {} as Record<Role, Awaited<ReturnType<typeof createOperator>>>;
  const bg = () => `Bearer ${api.operatorToken}`;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    w = await createWorld(api, { merchants: [{}], offers: [{}] });
    for (const role of ROLES) ops[role] = await createOperator(api, role);
  });
  afterAll(() => api.close());

  const yesterday = () => new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);

  /** Each route with a valid request and the roles the table allows it. */
  const ROUTES: {
    name: string;
    allowed: Role[];
    send: (auth: string) => request.Test;
  }[] = [
    {
      name: 'create an operator',
      allowed: ['admin'],
      send: (a) =>
        api.http
          .post('/admin/api/v1/operators')
          .set('Authorization', a)
          .send({
            email: `${uniq('new-')}@ops.test`,
            name: 'New',
            password: 'correct horse battery',
            role: 'support',
          }),
    },
    {
      name: 'create an institution',
      allowed: ['admin'],
      send: (a) =>
        api.http
          .post('/admin/api/v1/institutions')
          .set('Authorization', a)
          .send({ name: uniq('Bank '), plan: 'growth' }),
    },
    {
      name: "create an institution's portal user",
      allowed: ['admin'],
      send: (a) =>
        api.http
          .post(`/admin/api/v1/institutions/${w.institution.id}/users`)
          .set('Authorization', a)
          .send({
            email: `${uniq('u-')}@bank.test`,
            password: 'correct horse battery',
            role: 'member',
          }),
    },
    {
      name: 'issue an API key',
      allowed: ['admin'],
      send: (a) =>
        api.http
          .post(`/admin/api/v1/institutions/${w.institution.id}/api-keys`)
          .set('Authorization', a)
          .send({ name: 'k' }),
    },
    {
      name: 'place a legal hold',
      allowed: ['admin'],
      send: (a) =>
        api.http
          .put(`/admin/api/v1/institutions/${w.institution.id}/legal-hold`)
          .set('Authorization', a)
          .send({ reason: 'role test' }),
    },
    {
      name: 'create a merchant',
      allowed: ['admin', 'author'],
      send: (a) =>
        api.http
          .post('/admin/api/v1/merchants')
          .set('Authorization', a)
          .send({
            name: uniq('M '),
            category: 'groceries',
            identifiers: [{ type: 'card_acceptor', value: uniq('CA') }],
          }),
    },
    {
      name: 'add a merchant identifier',
      allowed: ['admin', 'author'],
      send: (a) =>
        api.http
          .post(`/admin/api/v1/merchants/${w.merchants[0].id}/identifiers`)
          .set('Authorization', a)
          .send({ type: 'card_acceptor', value: uniq('CA') }),
    },
    {
      name: 'create an offer',
      allowed: ['admin', 'author'],
      send: (a) =>
        api.http
          .post('/admin/api/v1/offers')
          .set('Authorization', a)
          .send({
            merchant_id: w.merchants[0].id,
            status: 'draft',
            translations: { en: { title: 'Role test', description: 'x' } },
            min_spend: 10,
            cashback_amount: 1,
            currency: 'USD',
            starts_at: new Date().toISOString(),
            expires_at: new Date(Date.now() + 86_400_000).toISOString(),
          }),
    },
    {
      name: "edit an offer's texts",
      allowed: ['admin', 'author'],
      send: (a) =>
        api.http
          .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
          .set('Authorization', a)
          .send({ priority: 1 }),
    },
    {
      name: 'pause an offer',
      allowed: ['admin', 'approver'],
      send: (a) =>
        api.http
          .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
          .set('Authorization', a)
          .send({ status: 'paused' }),
    },
    {
      name: 'run settlement',
      allowed: ['admin'],
      send: (a) =>
        api.http
          .post('/admin/api/v1/settlements/run')
          .set('Authorization', a)
          .send({ as_of: '2000-01-01T00:00:00Z' }),
    },
    {
      name: 'retry match failures',
      allowed: ['admin'],
      send: (a) =>
        api.http
          .post('/admin/api/v1/match-failures/retry')
          .set('Authorization', a)
          .send({ transaction_ids: ['00000000-0000-4000-8000-000000000000'] }),
    },
    {
      name: 'close statements',
      allowed: ['admin'],
      send: (a) =>
        api.http
          .post('/admin/api/v1/statements/close')
          .set('Authorization', a)
          .send({ through: yesterday(), institution_id: w.institution.id }),
    },
    {
      name: "send an institution's webhook test",
      allowed: ['admin', 'support'],
      send: (a) =>
        api.http
          .post(`/admin/api/v1/institutions/${w.institution.id}/webhook/test`)
          .set('Authorization', a),
    },
    {
      name: 'list offers',
      allowed: ROLES,
      send: (a) => api.http.get('/admin/api/v1/offers?limit=1').set('Authorization', a),
    },
    {
      name: 'read the audit log',
      allowed: ROLES,
      send: (a) => api.http.get('/admin/api/v1/audit?limit=1').set('Authorization', a),
    },
  ];

  describe.each(ROUTES)('$name', ({ allowed, send }) => {
    it.each(ROLES)('as %s', async (role) => {
      const res = await send(ops[role].auth);
      if (allowed.includes(role)) {
        expect(res.status).not.toBe(403);
        expect(res.status).toBeLessThan(500);
      } else {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'insufficient_role' });
        expect(res.body.message).toContain(`(${role})`);
      }
    });
  });

  it('the break-glass token may do everything, as before', async () => {
    for (const r of ROUTES) {
      const res = await r.send(bg());
      expect([r.name, res.status === 403]).toEqual([r.name, false]);
    }
  });

  it("the queue dashboard takes an admin's token, not another role's", async () => {
    await api.http.get('/admin/queues/api/queues').set('Authorization', ops.admin.auth).expect(200);
    const refused = await api.http
      .get('/admin/queues/api/queues')
      .set('Authorization', ops.support.auth)
      .expect(403);
    expect(refused.body.error).toBe('insufficient_role');
  });

  it('a change that both edits and pauses needs a role that may do both', async () => {
    for (const role of ['author', 'approver'] as const) {
      const res = await api.http
        .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
        .set('Authorization', ops[role].auth)
        .send({ status: 'paused', priority: 2 })
        .expect(403);
      expect(res.body.error).toBe('insufficient_role');
    }
    await api.http
      .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
      .set('Authorization', ops.admin.auth)
      .send({ status: 'active', priority: 2 })
      .expect(200);
  });

  describe('personal tokens', () => {
    it('are shown once, stored hashed, and authenticate as the operator', async () => {
      const o = await createOperator(api, 'author');
      expect(o.token).toMatch(/^plo_op_[A-Za-z0-9_-]{43}$/);
      const [row] = await db.query(
        `SELECT token_hash, hint FROM operator_token WHERE operator_id = $1`,
        [o.id],
      );
      expect(row.token_hash).not.toContain(o.token);
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.hint).toBe(`plo_op_…${o.token.slice(-4)}`);
      const me = await api.http
        .get('/admin/api/v1/auth/me')
        .set('Authorization', o.auth)
        .expect(200);
      expect(me.body).toMatchObject({
        via: 'token',
        csrf_token: null,
        operator: { id: o.id, role: 'author' },
      });
      const list = await api.http
        .get(`/admin/api/v1/operators/${o.id}/tokens`)
        .set('Authorization', o.auth)
        .expect(200);
      expect(JSON.stringify(list.body)).not.toContain(o.token);
    });

    it("an operator makes its own; another's only an admin or the break-glass token", async () => {
      const own = await api.http
        .post(`/admin/api/v1/operators/${ops.support.id}/tokens`)
        .set('Authorization', ops.support.auth)
        .send({ name: 'mine', expires_at: new Date(Date.now() + 86_400_000).toISOString() })
        .expect(201);
      expect(own.body).toMatchObject({ name: 'mine', operator_id: ops.support.id });
      const other = await api.http
        .post(`/admin/api/v1/operators/${ops.author.id}/tokens`)
        .set('Authorization', ops.support.auth)
        .send({})
        .expect(403);
      expect(other.body.error).toBe('insufficient_role');
      await api.http
        .post(`/admin/api/v1/operators/${ops.author.id}/tokens`)
        .set('Authorization', ops.admin.auth)
        .send({})
        .expect(201);
    });

    it('a revoked or expired token is refused with invalid_token', async () => {
      const o = await createOperator(api, 'support');
      const [t] = await db.query(`SELECT id FROM operator_token WHERE operator_id = $1`, [o.id]);
      await api.http
        .post(`/admin/api/v1/operators/${o.id}/tokens/${t.id}/revoke`)
        .set('Authorization', o.auth)
        .expect(200);
      const res = await api.http
        .get('/admin/api/v1/offers')
        .set('Authorization', o.auth)
        .expect(401);
      expect(res.body.error).toBe('invalid_token');
      const expiring = await api.http
        .post(`/admin/api/v1/operators/${o.id}/tokens`)
        .set('Authorization', bg())
        .send({ expires_at: new Date(Date.now() + 60_000).toISOString() })
        .expect(201);
      await db.query(
        `UPDATE operator_token SET expires_at = now() - interval '1 second' WHERE id = $1`,
        [expiring.body.id],
      );
      await api.http
        .get('/admin/api/v1/offers')
        .set('Authorization', `Bearer ${expiring.body.token}`)
        .expect(401);
    });
  });

  describe('operators', () => {
    it('are listed and changed by an admin; e-mails are unique case-insensitively', async () => {
      const o = await createOperator(api, 'author');
      const dup = await api.http
        .post('/admin/api/v1/operators')
        .set('Authorization', ops.admin.auth)
        .send({
          email: o.email.toUpperCase(),
          name: 'Dup',
          password: 'correct horse battery',
          role: 'author',
        })
        .expect(409);
      expect(dup.body.error).toBe('email_taken');
      const changed = await api.http
        .patch(`/admin/api/v1/operators/${o.id}`)
        .set('Authorization', ops.admin.auth)
        .send({ role: 'approver' })
        .expect(200);
      expect(changed.body).toMatchObject({ id: o.id, role: 'approver', status: 'active' });
      // The new role applies to the next request of its existing token.
      await api.http
        .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
        .set('Authorization', o.auth)
        .send({ status: 'active' })
        .expect(200);
      const page = await api.http
        .get('/admin/api/v1/operators?limit=1000')
        .set('Authorization', ops.support.auth)
        .expect(200);
      expect(page.body.data.map((x: { id: string }) => x.id)).toContain(o.id);
    });

    it('disabling revokes its sessions and tokens in the same transaction', async () => {
      const o = await createOperator(api, 'author');
      const agent = request.agent(api.app.getHttpServer());
      const login = await agent
        .post('/admin/api/v1/auth/login')
        .send({ email: o.email, password: o.password })
        .expect(200);
      await agent.get('/admin/api/v1/auth/me').expect(200);
      const res = await api.http
        .patch(`/admin/api/v1/operators/${o.id}`)
        .set('Authorization', ops.admin.auth)
        .send({ status: 'disabled' })
        .expect(200);
      expect(res.body).toMatchObject({ status: 'disabled', disabled_at: expect.any(String) });
      const [counts] = await db.query(
        `SELECT (SELECT count(*)::int FROM operator_token WHERE operator_id = $1 AND revoked_at IS NULL) AS tokens,
                (SELECT count(*)::int FROM operator_session WHERE operator_id = $1 AND revoked_at IS NULL) AS sessions`,
        [o.id],
      );
      expect(counts).toEqual({ tokens: 0, sessions: 0 });
      await api.http.get('/admin/api/v1/offers').set('Authorization', o.auth).expect(401);
      await agent.get('/admin/api/v1/auth/me').expect(401);
      await agent
        .post('/admin/api/v1/merchants')
        .set('X-CSRF-Token', login.body.csrf_token)
        .send({ name: 'x', category: 'groceries', identifiers: [] })
        .expect(401);
      const again = await api.http
        .post('/admin/api/v1/auth/login')
        .send({ email: o.email, password: o.password })
        .expect(403);
      expect(again.body.error).toBe('operator_disabled');
      // Re-enabled, it signs in again; its old token stays revoked.
      await api.http
        .patch(`/admin/api/v1/operators/${o.id}`)
        .set('Authorization', ops.admin.auth)
        .send({ status: 'active' })
        .expect(200);
      await api.http
        .post('/admin/api/v1/auth/login')
        .send({ email: o.email, password: o.password })
        .expect(200);
      await api.http.get('/admin/api/v1/offers').set('Authorization', o.auth).expect(401);
    });
  });

  describe('console sign-in', () => {
    it('sets an httpOnly, SameSite=Strict cookie scoped to /admin/api; writes need the CSRF header', async () => {
      const o = ops.author;
      const agent = request.agent(api.app.getHttpServer());
      const login = await agent
        .post('/admin/api/v1/auth/login')
        .send({ email: o.email.toUpperCase(), password: o.password })
        .expect(200);
      const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? [])[0];
      expect(cookie).toMatch(/^plo_operator_session=/);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      expect(cookie).toMatch(/Path=\/admin\/api(;|$)/);
      expect(login.body).toMatchObject({ via: 'session', operator: { id: o.id, role: 'author' } });
      const csrf = login.body.csrf_token as string;

      const body = () => ({
        name: uniq('M '),
        category: 'groceries',
        identifiers: [{ type: 'card_acceptor', value: uniq('CA') }],
      });
      const bare = await agent.post('/admin/api/v1/merchants').send(body()).expect(403);
      expect(bare.body.error).toBe('csrf_failed');
      await agent
        .post('/admin/api/v1/merchants')
        .set('X-CSRF-Token', 'nope')
        .send(body())
        .expect(403);
      await agent
        .post('/admin/api/v1/merchants')
        .set('X-CSRF-Token', csrf)
        .send(body())
        .expect(201);
      // Reads need no CSRF token; the role applies to the session as to tokens.
      await agent.get('/admin/api/v1/merchants?limit=1').expect(200);
      const refused = await agent
        .post('/admin/api/v1/institutions')
        .set('X-CSRF-Token', csrf)
        .send({ name: uniq('Bank '), plan: 'growth' })
        .expect(403);
      expect(refused.body.error).toBe('insufficient_role');
      const me = await agent.get('/admin/api/v1/auth/me').expect(200);
      expect(me.body.csrf_token).toBe(csrf);

      await agent.post('/admin/api/v1/auth/logout').set('X-CSRF-Token', csrf).expect(204);
      await agent.get('/admin/api/v1/auth/me').expect(401);
    });

    it('the portal cookie is no operator session, nor the operator cookie a portal one', async () => {
      const agent = request.agent(api.app.getHttpServer());
      await agent.post('/portal/api/auth/login').send(w.admin).expect(200);
      await agent.get('/admin/api/v1/offers').expect(401);
      const op = request.agent(api.app.getHttpServer());
      await op
        .post('/admin/api/v1/auth/login')
        .send({ email: ops.admin.email, password: ops.admin.password })
        .expect(200);
      await op.get('/portal/api/me').expect(401);
    });

    it('a session ends after 30 minutes without a request', async () => {
      const o = await createOperator(api, 'support');
      const agent = request.agent(api.app.getHttpServer());
      await agent
        .post('/admin/api/v1/auth/login')
        .send({ email: o.email, password: o.password })
        .expect(200);
      await agent.get('/admin/api/v1/auth/me').expect(200);
      await db.query(
        `UPDATE operator_session SET last_seen_at = now() - interval '29 minutes' WHERE operator_id = $1`,
        [o.id],
      );
      await agent.get('/admin/api/v1/auth/me').expect(200); // used: the idle window moves on
      await db.query(
        `UPDATE operator_session SET last_seen_at = now() - interval '31 minutes' WHERE operator_id = $1`,
        [o.id],
      );
      await agent.get('/admin/api/v1/auth/me').expect(401);
    });

    it("the portal's lockout rules apply: 5 failures lock the e-mail (known or not) for 15 minutes", async () => {
      const o = await createOperator(api, 'approver');
      const login = (email: string, password: string) =>
        api.http.post('/admin/api/v1/auth/login').send({ email, password });
      for (let i = 0; i < 5; i++) {
        const r = await login(o.email, 'wrong password!');
        expect(r.status).toBe(401);
        expect(r.body.error).toBe('invalid_credentials');
      }
      const locked = await login(o.email, o.password);
      expect(locked.status).toBe(429);
      expect(locked.body.error).toBe('login_locked');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
      const unknown = `${uniq('nobody-')}@ops.test`;
      for (let i = 0; i < 5; i++)
        expect((await login(unknown, 'wrong password!')).status).toBe(401);
      expect((await login(unknown, 'wrong password!')).status).toBe(429);
      // The operators' lockout is their own: a portal user of the same e-mail is not locked.
      expect((await api.http.post('/portal/api/auth/login').send(w.member)).status).toBe(200);
    });
  });

  describe('second factor', () => {
    it('TOTP: enrolled by its first code, then asked at sign-in; each code once; recovery codes once; an admin resets it', async () => {
      const o = await createOperator(api, 'author');
      const login = (extra: Record<string, string> = {}) =>
        api.http
          .post('/admin/api/v1/auth/login')
          .send({ email: o.email, password: o.password, ...extra });

      const started = await api.http
        .post('/admin/api/v1/auth/totp')
        .set('Authorization', o.auth)
        .expect(200);
      const secret = started.body.secret as string;
      expect(started.body.otpauth_uri).toContain(`secret=${secret}`);
      // Nothing changes before the first code.
      await login().expect(200);
      const wrong = await api.http
        .post('/admin/api/v1/auth/totp/confirm')
        .set('Authorization', o.auth)
        .send({ code: '000000' === totpCode(secret) ? '111111' : '000000' })
        .expect(400);
      expect(wrong.body.error).toBe('validation_failed');
      const confirmed = await api.http
        .post('/admin/api/v1/auth/totp/confirm')
        .set('Authorization', o.auth)
        .send({ code: totpCode(secret) })
        .expect(200);
      const codes = confirmed.body.recovery_codes as string[];
      expect(codes).toHaveLength(10);
      const [row] = await db.query(
        `SELECT totp_secret, recovery_code_hashes FROM operator WHERE id = $1`,
        [o.id],
      );
      expect(row.totp_secret).not.toContain(secret);
      expect(row.recovery_code_hashes.join()).not.toContain(codes[0]);

      const asked = await login().expect(401);
      expect(asked.body.error).toBe('second_factor_required');
      // The app's next code (one step of drift is accepted): after the step that confirmed.
      const code = totpCode(secret, Date.now() + 30_000);
      const signed = await login({ totp_code: code }).expect(200);
      expect(signed.body.operator.second_factor).toBe(true);
      const replayed = await login({ totp_code: code }).expect(401);
      expect(replayed.body.error).toBe('invalid_second_factor');
      await login({ recovery_code: codes[3].toUpperCase() }).expect(200);
      await login({ recovery_code: codes[3] }).expect(401);

      await api.http
        .post(`/admin/api/v1/operators/${o.id}/second-factor/reset`)
        .set('Authorization', o.auth)
        .expect(403);
      const reset = await api.http
        .post(`/admin/api/v1/operators/${o.id}/second-factor/reset`)
        .set('Authorization', ops.admin.auth)
        .expect(200);
      expect(reset.body.second_factor).toBe(false);
      await login().expect(200);
    });

    it('the break-glass token has no account to enrol', async () => {
      const res = await api.http
        .post('/admin/api/v1/auth/totp')
        .set('Authorization', bg())
        .expect(409);
      expect(res.body.error).toBe('not_an_operator');
    });
  });

  it('every admin write route names its roles in the OpenAPI document', async () => {
    const doc = (await api.http.get('/docs/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { 'x-operator-roles'?: string[] }>>;
    };
    const missing: string[] = [];
    for (const [path, ops2] of Object.entries(doc.paths)) {
      if (!path.startsWith('/admin/api/v1/') || path === '/admin/api/v1/auth/login') continue;
      for (const [method, op] of Object.entries(ops2)) {
        if (method === 'get' || method === 'parameters') continue;
        if (!op['x-operator-roles']) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
