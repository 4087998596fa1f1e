import { DataSource } from 'typeorm';
import { createWorld, portalLogin, startApi, TestApi, uniq, World } from '@app/testing';

/**
 * The portal lockout holds under concurrency and tells nothing about which e-mails exist; a
 * suspended institution's staff cannot sign in and their sessions end.
 */
describe('portal login lockout and suspension', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  const login = (email: string, password: string) =>
    api.http.post('/portal/api/auth/login').send({ email, password });
  const statuses = (rs: { status: number }[]) =>
    rs.reduce<Record<number, number>>(
      (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
      {},
    );

  it('a parallel burst of wrong passwords plus the right one: at most 5 checked, the rest 429 login_locked, and the success clears nothing', async () => {
    const w = await createWorld(api);
    const burst = await Promise.all([
      ...Array.from({ length: 60 }, () => login(w.member.email, 'wrong password!')),
      login(w.member.email, w.member.password),
      ...Array.from({ length: 60 }, () => login(w.member.email, 'wrong password!')),
    ]);
    const counts = statuses(burst);
    expect((counts[401] ?? 0) + (counts[200] ?? 0)).toBeLessThanOrEqual(5);
    expect(counts[429]).toBeGreaterThanOrEqual(116);
    expect(Object.keys(counts).every((s) => ['200', '401', '429'].includes(s))).toBe(true);
    for (const r of burst.filter((x) => x.status === 429)) {
      expect(r.body).toMatchObject({ error: 'login_locked' });
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Whatever the burst's right password got, the lock it caused stands.
    const after = await login(w.member.email, w.member.password);
    expect(after.status).toBe(429);
  });

  it('unknown e-mails are counted and answered exactly like known ones', async () => {
    const w = await createWorld(api);
    const unknown = `${uniq('nobody-')}@bank.test`;
    const shape = (r: {
      status: number;
      body: Record<string, unknown>;
      headers: Record<string, string>;
    }) => ({
      status: r.status,
      error: r.body.error,
      message: r.body.message,
      retryAfter: r.headers['retry-after'] !== undefined,
    });
    const known: ReturnType<typeof shape>[] = [];
    const other: ReturnType<typeof shape>[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(shape(await login(w.admin.email, 'wrong password!')));
      other.push(shape(await login(unknown, 'wrong password!')));
    }
    expect(other).toEqual(known);
    expect(known.map((k) => k.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('unknown e-mails in a parallel burst: at most 5 × 401, then 429', async () => {
    const unknown = `${uniq('nobody-')}@bank.test`;
    const counts = statuses(
      await Promise.all(Array.from({ length: 50 }, () => login(unknown, 'x'))),
    );
    expect(counts[401]).toBeLessThanOrEqual(5);
    expect(counts[429]).toBeGreaterThanOrEqual(45);
  });

  it('the lock is keyed by the e-mail, whatever its case', async () => {
    const w = await createWorld(api);
    for (let i = 0; i < 5; i++)
      await login(i % 2 ? w.admin.email.toUpperCase() : w.admin.email, 'wrong password!').expect(
        401,
      );
    await login(w.admin.email, w.admin.password).expect(429);
  });

  it('a success forgets the failures made before it (not those made in parallel)', async () => {
    const w = await createWorld(api);
    for (let i = 0; i < 4; i++) await login(w.admin.email, 'wrong password!').expect(401);
    await login(w.admin.email, w.admin.password).expect(200);
    for (let i = 0; i < 4; i++) await login(w.admin.email, 'wrong password!').expect(401);
    await login(w.admin.email, w.admin.password).expect(200);
  });

  describe('suspended institution', () => {
    let w: World;
    beforeAll(async () => {
      w = await createWorld(api);
    });
    const suspend = (status: 'suspended' | 'active') =>
      api.http
        .patch(`/admin/api/v1/institutions/${w.institution.id}`)
        .set('Authorization', `Bearer ${api.operatorToken}`)
        .send({ status })
        .expect(200);

    it('ends its sessions at once: no page, no key creation', async () => {
      const admin = await portalLogin(api, w.admin);
      await admin.agent.get('/portal/api/me').expect(200);
      await suspend('suspended');
      await admin.agent.get('/portal/api/me').expect(401);
      await admin.agent
        .post('/portal/api/api-keys')
        .set('X-CSRF-Token', admin.csrf)
        .send({ name: 'after suspension', scopes: ['offers'] })
        .expect(401);
      const [{ n }] = await api.app.get(DataSource).query(
        `SELECT count(*)::int AS n FROM session s JOIN portal_user u ON u.id = s.user_id
            WHERE u.institution_id = $1 AND s.revoked_at IS NULL`,
        [w.institution.id],
      );
      expect(n).toBe(0);
    });

    it('refuses sign-in with a clear message (after the password, so it reveals no e-mail)', async () => {
      const res = await login(w.admin.email, w.admin.password).expect(403);
      expect(res.body).toMatchObject({
        error: 'institution_suspended',
        message: expect.stringMatching(/suspended/),
      });
      await login(w.admin.email, 'wrong password!').expect(401);
      await suspend('active');
      await login(w.admin.email, w.admin.password).expect(200);
    });
  });
});
