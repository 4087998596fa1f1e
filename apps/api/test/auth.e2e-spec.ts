import { DataSource } from 'typeorm';
import { clockPast, createWorld, eventually, startApi, TestApi, uniq, World } from '@app/testing';
import { MATRIX_SCOPES, PUBLIC_ROUTES } from './scope-matrix';

describe('API-key authentication (GET /api/v1/me)', () => {
  let api: TestApi;
  let world: World;

  beforeAll(async () => {
    api = await startApi();
    world = await createWorld(api);
  });
  afterAll(() => api.close());

  it('accepts a valid key and tells the institution and key', async () => {
    const res = await api.http.get('/api/v1/me').set('Authorization', world.auth).expect(200);
    expect(res.body).toEqual({
      institution: { id: world.institution.id, name: world.institution.name, plan: 'growth' },
      key: {
        id: world.keyId,
        name: 'test key',
        prefix: `plo_live_…${world.apiKey.slice(-4)}`,
        scopes: ['offers', 'transactions', 'reporting'],
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });
    // Default expiry: one year.
    const days = (Date.parse(res.body.key.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(364);
    expect(days).toBeLessThan(367);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('key format: recognizable prefix and 256 bits of randomness', () => {
    expect(world.apiKey).toMatch(/^plo_live_[A-Za-z0-9_-]{43}$/);
  });

  it.each([
    ['no header', undefined],
    ['not Bearer', 'Basic abc'],
    ['empty Bearer', 'Bearer '],
  ])('401 unauthorized for %s', async (_, header) => {
    const req = api.http.get('/api/v1/me');
    if (header !== undefined) req.set('Authorization', header);
    const res = await req.expect(401);
    expect(res.body).toMatchObject({
      error: 'unauthorized',
      request_id: res.headers['x-request-id'],
    });
  });

  it('401 invalid_token for an unknown key, whatever its prefix', async () => {
    for (const token of [`plo_live_${uniq()}`, 'sk_live_whatever', 'x']) {
      const res = await api.http
        .get('/api/v1/me')
        .set('Authorization', `Bearer ${token}`)
        .expect(401);
      expect(res.body.error).toBe('invalid_token');
    }
  });

  it('403 token_revoked for a revoked key', async () => {
    const w = await createWorld(api);
    await api.app
      .get(DataSource)
      .query(`UPDATE api_key SET revoked_at = now() WHERE id = $1`, [w.keyId]);
    const res = await api.http.get('/api/v1/me').set('Authorization', w.auth).expect(403);
    expect(res.body.error).toBe('token_revoked');
  });

  it('403 token_expired with message exactly "Token expired"', async () => {
    // The world first, then a key a few seconds from expiry: only its issue comes between the
    // expiry's choice and the key's first use, however long the world takes on a busy machine.
    const w = await createWorld(api);
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const issued = await api.http
      .post(`/admin/api/v1/institutions/${w.institution.id}/api-keys`)
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .send({ name: 'expiring', expires_at: expiresAt })
      .expect(201);
    const auth = `Bearer ${issued.body.key}`;
    await api.http.get('/api/v1/me').set('Authorization', auth).expect(200);
    await clockPast(expiresAt, 'the key expiry');
    const res = await api.http.get('/api/v1/me').set('Authorization', auth).expect(403);
    expect(res.body).toMatchObject({ error: 'token_expired', message: 'Token expired' });
  });

  it('a key from before scopes (NULL scopes) holds all three', async () => {
    const w = await createWorld(api, { scopes: null });
    const res = await api.http.get('/api/v1/me').set('Authorization', w.auth).expect(200);
    expect(res.body.key.scopes).toEqual(['offers', 'transactions', 'reporting']);
  });

  it('403 institution_suspended once an operator suspends the institution', async () => {
    const w = await createWorld(api);
    await api.http
      .patch(`/admin/api/v1/institutions/${w.institution.id}`)
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .send({ status: 'suspended' })
      .expect(200);
    const res = await api.http.get('/api/v1/me').set('Authorization', w.auth).expect(403);
    expect(res.body.error).toBe('institution_suspended');
  });

  it('records last_used_at at most once a minute', async () => {
    const w = await createWorld(api);
    const db = api.app.get(DataSource);
    const read = async () =>
      (await db.query(`SELECT last_used_at FROM api_key WHERE id = $1`, [w.keyId]))[0].last_used_at;
    expect(await read()).toBeNull();
    await api.http.get('/api/v1/me').set('Authorization', w.auth).expect(200);
    const first: Date = await eventually(read, 'last_used_at recorded', 1_000, 25);
    expect(first).toBeInstanceOf(Date);
    await api.http.get('/api/v1/me').set('Authorization', w.auth).expect(200);
    await new Promise((r) => setTimeout(r, 100));
    expect((await read()).getTime()).toBe(first!.getTime());
  });
});

describe('scope matrix', () => {
  let api: TestApi;
  const keys: Record<string, string> = {};
  let offerId: string;

  beforeAll(async () => {
    api = await startApi();
    const base = await createWorld(api, { merchants: [{}], offers: [{}] });
    offerId = base.offers[0].id;
    for (const scope of MATRIX_SCOPES) {
      const res = await api.http
        .post(`/admin/api/v1/institutions/${base.institution.id}/api-keys`)
        .set('Authorization', `Bearer ${api.operatorToken}`)
        .send({ name: `only ${scope}`, scopes: [scope] })
        .expect(201);
      keys[scope] = res.body.key;
    }
  });
  afterAll(() => api.close());

  const cases = PUBLIC_ROUTES.flatMap((route) =>
    MATRIX_SCOPES.map((keyScope) => ({
      route,
      keyScope,
      allowed:
        route.scope === null ||
        (Array.isArray(route.scope) ? route.scope.includes(keyScope) : route.scope === keyScope),
    })),
  );

  it.each(cases)(
    '$route.method $route.path with a "$keyScope" key → allowed: $allowed',
    async ({ route, keyScope, allowed }) => {
      const path = route.path.replace(':offer', offerId);
      const req = api.http[route.method](path).set('Authorization', `Bearer ${keys[keyScope]}`);
      const body =
        route.body === undefined
          ? undefined
          : JSON.parse(JSON.stringify(route.body).replace(':offer', offerId));
      const res = body === undefined ? await req : await req.send(body as object);
      if (allowed) {
        expect([401, 403]).not.toContain(res.status);
      } else {
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('insufficient_scope');
      }
    },
  );
});
