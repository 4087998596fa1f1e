import { createWorld, portalLogin, startApi, TestApi, World } from '@app/testing';

type Login = Awaited<ReturnType<typeof portalLogin>>;

/**
 * Staff roles (docs/portal.md): each role reaches its areas and is refused `403 forbidden`
 * elsewhere; a member keeps exactly a non-admin user's rights.
 */
describe('portal: staff roles', () => {
  let api: TestApi;
  let world: World;
  const as: Record<string, Login> = {};

  beforeAll(async () => {
    api = await startApi();
    world = await createWorld(api);
    as.admin = await portalLogin(api, world.admin);
    as.member = await portalLogin(api, world.member);
    for (const role of ['developer', 'analyst', 'support']) {
      const user = { email: `${role}-${Date.now()}@bank.test`, password: 'correct horse battery' };
      const created = await api.http
        .post(`/admin/api/v1/institutions/${world.institution.id}/users`)
        .set('Authorization', `Bearer ${api.operatorToken}`)
        .send({ ...user, role })
        .expect(201);
      expect(created.body.role).toBe(role);
      as[role] = await portalLogin(api, user);
    }
  });
  afterAll(() => api.close());

  const get = (who: string, path: string) => as[who].agent.get(path);
  const createKey = (who: string) =>
    as[who].agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', as[who].csrf)
      .send({ name: `${who} key`, scopes: ['offers'] });

  it('an unknown role is refused when the user is created', async () => {
    const res = await api.http
      .post(`/admin/api/v1/institutions/${world.institution.id}/users`)
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .send({ email: 'owner@bank.test', password: 'correct horse battery', role: 'owner' })
      .expect(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it('GET /portal/api/me names the areas each role reaches, for the navigation', async () => {
    const me = async (who: string) => (await get(who, '/portal/api/me').expect(200)).body.user;
    expect((await me('analyst')).access).toEqual({
      account: 'act',
      reporting: 'read',
      statements: 'read',
      offers: 'read',
    });
    expect((await me('support')).access).toEqual({ account: 'act', claims: 'act', offers: 'read' });
    expect((await me('developer')).access).toMatchObject({ keys: 'manage', webhooks: 'manage' });
    expect((await me('member')).access.keys).toBe('act');
    expect((await me('admin')).access.keys).toBe('manage');
  });

  it.each([
    ['/portal/api/dashboard', ['admin', 'member', 'analyst'], ['developer', 'support']],
    [
      '/portal/api/statements?granularity=day',
      ['admin', 'member', 'analyst'],
      ['developer', 'support'],
    ],
    ['/portal/api/offers', ['admin', 'member', 'analyst', 'support'], ['developer']],
    ['/portal/api/api-keys', ['admin', 'member', 'developer'], ['analyst', 'support']],
    ['/portal/api/webhook', ['admin', 'member', 'developer'], ['analyst', 'support']],
    ['/portal/api/widget', ['admin', 'member', 'developer'], ['analyst', 'support']],
    ['/portal/api/transactions/uploads', ['admin', 'member', 'developer'], ['analyst', 'support']],
    ['/portal/api/security-activity', ['admin', 'member', 'developer'], ['analyst', 'support']],
    ['/portal/api/inbox', ['admin', 'member', 'developer', 'analyst', 'support'], []],
  ])('GET %s: allowed to %p, 403 forbidden to %p', async (path, allowed, refused) => {
    for (const who of allowed) await get(who, path).expect(200);
    for (const who of refused) {
      const res = await get(who, path).expect(403);
      expect(res.body.error).toBe('forbidden');
    }
  });

  it('keys are created by admins and developers; members, analysts and support are refused', async () => {
    for (const who of ['admin', 'developer']) await createKey(who).expect(201);
    for (const who of ['member', 'analyst', 'support']) {
      const res = await createKey(who).expect(403);
      expect(res.body.error).toBe('forbidden');
    }
  });

  it("a developer manages the widget and the webhook's settings; a member still only reads them", async () => {
    const origins = (who: string) =>
      as[who].agent
        .put('/portal/api/widget')
        .set('X-CSRF-Token', as[who].csrf)
        .send({ allowed_origins: ['https://bank.example'] });
    await origins('developer').expect(200);
    await origins('member').expect(403);
    const rotate = (who: string) =>
      as[who].agent.post('/portal/api/webhook/secret').set('X-CSRF-Token', as[who].csrf).send({});
    await rotate('analyst').expect(403);
    await rotate('member').expect(403);
    expect([200, 201]).toContain((await rotate('developer')).status);
  });

  it('only an institution admin reveals the holdout key (it is a secret: never an analyst)', async () => {
    const reveal = (who: string) =>
      as[who].agent.post('/portal/api/holdout-key/reveal').set('X-CSRF-Token', as[who].csrf);
    for (const who of ['analyst', 'developer', 'member', 'support']) await reveal(who).expect(403);
    await reveal('admin').expect(200);
  });

  it('every role signs out', async () => {
    for (const who of ['analyst', 'support']) {
      await as[who].agent
        .post('/portal/api/auth/logout')
        .set('X-CSRF-Token', as[who].csrf)
        .expect(204);
      await get(who, '/portal/api/me').expect(401);
    }
  });
});
