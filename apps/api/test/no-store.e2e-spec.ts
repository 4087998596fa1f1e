import { createWorld, portalLogin, startApi, TestApi, World } from '@app/testing';

/** Responses carrying a key, a secret or a session are never stored by a cache (finding 10). */
describe('Cache-Control: no-store on every API answer', () => {
  let api: TestApi;
  let w: World;
  let admin: Awaited<ReturnType<typeof portalLogin>>;
  const op = () => `Bearer ${api.operatorToken}`;

  beforeAll(async () => {
    api = await startApi();
    w = await createWorld(api, { merchants: [{}], offers: [{}] });
    admin = await portalLogin(api, w.admin);
  });
  afterAll(() => api.close());

  const noStore = (res: { headers: Record<string, string>; status: number }, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers['cache-control']).toBe('no-store');
  };

  it('admin: a new API key (the plaintext key)', async () => {
    const res = await api.http
      .post(`/admin/api/v1/institutions/${w.institution.id}/api-keys`)
      .set('Authorization', op())
      .send({ name: 'cache test' });
    noStore(res, 201);
    expect(res.body.key).toEqual(expect.any(String));
  });

  it('portal: a new API key, a rotated signing secret, the sign-in and /me (CSRF token)', async () => {
    const key = await admin.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'cache test', scopes: ['offers'] });
    noStore(key, 201);
    await admin.agent
      .put('/portal/api/webhook')
      .set('X-CSRF-Token', admin.csrf)
      .send({ url: 'https://hooks.example.com/offers' });
    const secret = await admin.agent
      .post('/portal/api/webhook/secret')
      .set('X-CSRF-Token', admin.csrf)
      .send({});
    noStore(secret, 201);
    noStore(await api.http.post('/portal/api/auth/login').send(w.member), 200);
    noStore(await admin.agent.get('/portal/api/me'), 200);
  });

  it('public, widget and admin reads, and errors', async () => {
    noStore(await api.http.get('/api/v1/me').set('Authorization', w.auth), 200);
    noStore(await api.http.get('/admin/api/v1/institutions').set('Authorization', op()), 200);
    noStore(await api.http.get('/api/v1/me'), 401);
    noStore(await api.http.get('/widget/v1/offers'), 401);
  });
});
