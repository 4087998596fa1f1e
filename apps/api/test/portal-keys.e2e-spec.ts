import { DataSource } from 'typeorm';
import { createWorld, portalLogin, startApi, TestApi, World } from '@app/testing';

describe('portal: API keys and security activity', () => {
  let api: TestApi;
  let world: World;
  let admin: Awaited<ReturnType<typeof portalLogin>>;
  let member: Awaited<ReturnType<typeof portalLogin>>;

  beforeAll(async () => {
    api = await startApi();
    world = await createWorld(api);
    admin = await portalLogin(api, world.admin);
    member = await portalLogin(api, world.member);
  });
  afterAll(() => api.close());

  it('an admin creates a key: plaintext once, default expiry one year, scopes as chosen; the key works on the public API', async () => {
    const res = await admin.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'reporting job', scopes: ['reporting', 'offers'] })
      .expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^plo_live_[A-Za-z0-9_-]{43}$/),
      name: 'reporting job',
      prefix: `plo_live_…${res.body.key.slice(-4)}`,
      scopes: ['offers', 'reporting'],
      expires_at: expect.any(String),
      created_at: expect.any(String),
    });
    const days = (Date.parse(res.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(364);
    expect(days).toBeLessThan(367);

    const me = await api.http
      .get('/api/v1/me')
      .set('Authorization', `Bearer ${res.body.key}`)
      .expect(200);
    expect(me.body.key).toMatchObject({ id: res.body.id, scopes: ['offers', 'reporting'] });

    // The list never shows the plaintext again.
    const list = await member.agent.get('/portal/api/api-keys').expect(200);
    const listed = list.body.data.find((k: { id: string }) => k.id === res.body.id);
    expect(listed).toMatchObject({
      name: 'reporting job',
      state: 'active',
      revoked_at: null,
      created_by: world.admin.email,
      prefix: res.body.prefix,
    });
    expect(listed.days_to_expiry).toBeGreaterThanOrEqual(365);
    expect(JSON.stringify(list.body)).not.toContain(res.body.key);
  });

  it('a chosen expiry is kept; past or too distant expiries and bad scopes are refused', async () => {
    const at = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const ok = await admin.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'short', scopes: ['transactions'], expires_at: at })
      .expect(201);
    expect(ok.body.expires_at).toBe(at);
    const listed = (await admin.agent.get('/portal/api/api-keys').expect(200)).body.data.find(
      (k: { id: string }) => k.id === ok.body.id,
    );
    expect(listed).toMatchObject({ state: 'expiring_soon', days_to_expiry: 10 });

    for (const body of [
      {
        name: 'x',
        scopes: ['transactions'],
        expires_at: new Date(Date.now() - 1000).toISOString(),
      },
      {
        name: 'x',
        scopes: ['transactions'],
        expires_at: new Date(Date.now() + 800 * 86_400_000).toISOString(),
      },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['admin'] },
      { name: '', scopes: ['offers'] },
      { scopes: ['offers'] },
    ]) {
      const r = await admin.agent
        .post('/portal/api/api-keys')
        .set('X-CSRF-Token', admin.csrf)
        .send(body)
        .expect(400);
      expect(r.body.error).toBe('validation_failed');
      expect(r.body.details.length).toBeGreaterThan(0);
    }
  });

  it('revoking a key makes the public API refuse it with 403 token_revoked; revoking twice is harmless', async () => {
    const created = await admin.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'to revoke', scopes: ['offers'] })
      .expect(201);
    await api.http.get('/api/v1/me').set('Authorization', `Bearer ${created.body.key}`).expect(200);
    const revoked = await admin.agent
      .delete(`/portal/api/api-keys/${created.body.id}`)
      .set('X-CSRF-Token', admin.csrf)
      .expect(200);
    expect(revoked.body).toMatchObject({
      id: created.body.id,
      state: 'revoked',
      revoked_at: expect.any(String),
    });
    const refused = await api.http
      .get('/api/v1/me')
      .set('Authorization', `Bearer ${created.body.key}`)
      .expect(403);
    expect(refused.body.error).toBe('token_revoked');
    const again = await admin.agent
      .delete(`/portal/api/api-keys/${created.body.id}`)
      .set('X-CSRF-Token', admin.csrf)
      .expect(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
  });

  it('members read keys but cannot create or revoke them (403 forbidden)', async () => {
    const c = await member.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', member.csrf)
      .send({ name: 'nope', scopes: ['offers'] })
      .expect(403);
    expect(c.body.error).toBe('forbidden');
    const r = await member.agent
      .delete(`/portal/api/api-keys/${world.keyId}`)
      .set('X-CSRF-Token', member.csrf)
      .expect(403);
    expect(r.body.error).toBe('forbidden');
    await api.http.get('/api/v1/me').set('Authorization', world.auth).expect(200);
  });

  it('writes need a CSRF token; no session is 401', async () => {
    expect(
      (
        await admin.agent
          .post('/portal/api/api-keys')
          .send({ name: 'x', scopes: ['offers'] })
          .expect(403)
      ).body.error,
    ).toBe('csrf_failed');
    expect((await api.http.get('/portal/api/api-keys').expect(401)).body.error).toBe(
      'unauthorized',
    );
  });

  it("another institution's key cannot be seen or revoked (404)", async () => {
    const other = await createWorld(api);
    const r = await admin.agent
      .delete(`/portal/api/api-keys/${other.keyId}`)
      .set('X-CSRF-Token', admin.csrf)
      .expect(404);
    expect(r.body.error).toBe('api_key_not_found');
    const list = await admin.agent.get('/portal/api/api-keys').expect(200);
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(other.keyId);
    await api.http.get('/api/v1/me').set('Authorization', other.auth).expect(200);
    expect(
      (
        await admin.agent
          .delete('/portal/api/api-keys/not-a-uuid')
          .set('X-CSRF-Token', admin.csrf)
          .expect(400)
      ).body.error,
    ).toBe('validation_failed');
  });

  it('lists keys with keyset paging', async () => {
    const w = await createWorld(api);
    const a = await portalLogin(api, w.admin);
    for (let i = 0; i < 4; i++)
      await a.agent
        .post('/portal/api/api-keys')
        .set('X-CSRF-Token', a.csrf)
        .send({ name: `k${i}`, scopes: ['offers'] })
        .expect(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: {
        body: {
          data: { name: string }[];
          pagination: { next_cursor: string | null; limit: number };
        };
      } = await a.agent
        .get('/portal/api/api-keys')
        .query(cursor ? { limit: 2, cursor } : { limit: 2 })
        .expect(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((k) => k.name));
      cursor = res.body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['k3', 'k2', 'k1', 'k0', 'test key']);
    expect(
      (await a.agent.get('/portal/api/api-keys').query({ cursor: 'forged' }).expect(400)).body
        .error,
    ).toBe('validation_failed');
    // A cursor of another institution's list is refused too.
    const mine = await admin.agent.get('/portal/api/api-keys').query({ limit: 1 }).expect(200);
    await a.agent
      .get('/portal/api/api-keys')
      .query({ cursor: mine.body.pagination.next_cursor })
      .expect(400);
  });

  it('security activity lists key creation and revocation, logins, newest first, paged', async () => {
    const w = await createWorld(api);
    const a = await portalLogin(api, w.admin);
    const k = await a.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', a.csrf)
      .send({ name: 'audited', scopes: ['offers'] })
      .expect(201);
    await a.agent
      .delete(`/portal/api/api-keys/${k.body.id}`)
      .set('X-CSRF-Token', a.csrf)
      .expect(200);
    const m = await portalLogin(api, w.member);
    const res = await m.agent.get('/portal/api/security-activity').expect(200);
    const types = res.body.data.map((e: { type: string }) => e.type);
    expect(types.slice(0, 4)).toEqual([
      'login.succeeded',
      'api_key.revoked',
      'api_key.created',
      'login.succeeded',
    ]);
    expect(types).toContain('api_key.created'); // the operator's bootstrap key
    const created = res.body.data.find(
      (e: { type: string; details: { key_id?: string } }) =>
        e.type === 'api_key.created' && e.details.key_id === k.body.id,
    );
    expect(created).toMatchObject({
      actor: w.admin.email,
      details: { name: 'audited', prefix: k.body.prefix, scopes: ['offers'] },
      created_at: expect.any(String),
    });
    const page = await m.agent.get('/portal/api/security-activity').query({ limit: 2 }).expect(200);
    expect(page.body.data).toHaveLength(2);
    const next = await m.agent
      .get('/portal/api/security-activity')
      .query({ limit: 2, cursor: page.body.pagination.next_cursor })
      .expect(200);
    expect(next.body.data[0].id).toBe(res.body.data[2].id);
    // Nothing of another institution.
    const ids = new Set(res.body.data.map((e: { id: string }) => e.id));
    const foreign = await api.app
      .get(DataSource)
      .query(`SELECT id FROM security_event WHERE institution_id <> $1 LIMIT 5`, [
        w.institution.id,
      ]);
    for (const f of foreign) expect(ids.has(f.id)).toBe(false);
  });
});
