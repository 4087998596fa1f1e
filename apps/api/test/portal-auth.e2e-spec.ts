import request from 'supertest';
import { DataSource } from 'typeorm';
import { createWorld, portalLogin, startApi, TestApi, World } from '@app/testing';

describe('portal sessions', () => {
  let api: TestApi;
  let world: World;
  beforeAll(async () => {
    api = await startApi();
    world = await createWorld(api);
  });
  afterAll(() => api.close());

  it('logs in with an httpOnly SameSite=Strict cookie and returns the user and a CSRF token', async () => {
    const res = await api.http.post('/portal/api/auth/login').send(world.admin).expect(200);
    expect(res.body).toEqual({
      user: {
        id: expect.any(String),
        email: world.admin.email,
        role: 'admin',
        access: expect.objectContaining({ keys: 'manage', webhooks: 'manage' }),
        institution: { id: world.institution.id, name: world.institution.name, plan: 'growth' },
      },
      csrf_token: expect.any(String),
    });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/plo_session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\/portal/);
    expect(cookie).toMatch(/Expires=/);
  });

  it('same 401 invalid_credentials for a wrong password and an unknown e-mail', async () => {
    const wrong = await api.http
      .post('/portal/api/auth/login')
      .send({ email: world.member.email, password: 'nope nope nope' })
      .expect(401);
    const unknown = await api.http
      .post('/portal/api/auth/login')
      .send({ email: 'nobody@bank.test', password: 'nope nope nope' })
      .expect(401);
    expect(wrong.body.error).toBe('invalid_credentials');
    expect(unknown.body.error).toBe('invalid_credentials');
    expect(wrong.body.message).toBe(unknown.body.message);
  });

  it('GET /portal/api/me needs a session', async () => {
    expect((await api.http.get('/portal/api/me').expect(401)).body.error).toBe('unauthorized');
    const { agent } = await portalLogin(api, world.member);
    const me = await agent.get('/portal/api/me').expect(200);
    expect(me.body.user).toMatchObject({ email: world.member.email, role: 'member' });
  });

  it('writes need the CSRF token of the session', async () => {
    const { agent, csrf } = await portalLogin(api, world.admin);
    expect((await agent.post('/portal/api/auth/logout').expect(403)).body.error).toBe(
      'csrf_failed',
    );
    expect(
      (await agent.post('/portal/api/auth/logout').set('X-CSRF-Token', 'forged').expect(403)).body
        .error,
    ).toBe('csrf_failed');
    const other = await portalLogin(api, world.admin);
    await agent.post('/portal/api/auth/logout').set('X-CSRF-Token', other.csrf).expect(403);
    await agent.post('/portal/api/auth/logout').set('X-CSRF-Token', csrf).expect(204);
    // The session is gone after logout.
    await agent.get('/portal/api/me').expect(401);
  });

  it('a forged or expired session cookie is refused', async () => {
    await request(api.app.getHttpServer())
      .get('/portal/api/me')
      .set('Cookie', 'plo_session=forged')
      .expect(401);
    const { agent } = await portalLogin(api, world.member);
    await api.app
      .get(DataSource)
      .query(
        `UPDATE session SET expires_at = now() - interval '1 second' WHERE user_id = (SELECT id FROM portal_user WHERE email = $1)`,
        [world.member.email],
      );
    await agent.get('/portal/api/me').expect(401);
  });

  it('locks a login after 5 failures in a row (429 login_locked with Retry-After), records security activity', async () => {
    const w = await createWorld(api);
    for (let i = 0; i < 5; i++) {
      await api.http
        .post('/portal/api/auth/login')
        .send({ email: w.member.email, password: 'wrong password!' })
        .expect(401);
    }
    const locked = await api.http.post('/portal/api/auth/login').send(w.member).expect(429);
    expect(locked.body.error).toBe('login_locked');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    const events = await api.app
      .get(DataSource)
      .query(`SELECT type FROM security_event WHERE institution_id = $1 ORDER BY created_at`, [
        w.institution.id,
      ]);
    const types = events.map((e: { type: string }) => e.type);
    expect(types.filter((t: string) => t === 'login.failed')).toHaveLength(4);
    expect(types).toContain('login.locked');
  });

  it('a successful login resets the failure count and is recorded', async () => {
    const w = await createWorld(api);
    const wrong = () =>
      api.http
        .post('/portal/api/auth/login')
        .send({ email: w.admin.email, password: 'wrong password!' })
        .expect(401);
    await wrong();
    await api.http.post('/portal/api/auth/login').send(w.admin).expect(200);
    // The failure before the success is forgotten: four more still leave the login open (five
    // in a row would lock it).
    for (let i = 0; i < 4; i++) await wrong();
    await api.http.post('/portal/api/auth/login').send(w.admin).expect(200);
    const [u] = await api.app
      .get(DataSource)
      .query(`SELECT last_login_at FROM portal_user WHERE email = $1`, [w.admin.email]);
    expect(u.last_login_at).toBeInstanceOf(Date);
  });
});
