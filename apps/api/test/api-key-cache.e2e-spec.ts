import { DataSource } from 'typeorm';
import { createWorld, eventually, portalLogin, startApi, TestApi, World } from '@app/testing';

/**
 * Each api process keeps API-key rows in memory for a few seconds; a revocation or a suspension
 * made through one process must be refused by every other one at once. Two api applications in
 * this process stand for two api processes: each has its own cache and its own LISTEN connection.
 */
describe('API-key cache across api processes', () => {
  let one: TestApi;
  let two: TestApi;

  beforeAll(async () => {
    one = await startApi();
    two = await startApi();
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  /** A key both processes have served (so both hold it in memory). */
  async function cachedEverywhere(world: World, key = world.auth): Promise<void> {
    for (const api of [one, two, one, two])
      await api.http.get('/api/v1/me').set('Authorization', key).expect(200);
  }

  it('a key revoked through one process is refused by the other at once', async () => {
    const world = await createWorld(one);
    const admin = await portalLogin(one, world.admin);
    const created = await admin.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'revoked elsewhere', scopes: ['offers'] })
      .expect(201);
    const key = `Bearer ${created.body.key}`;
    await cachedEverywhere(world, key);

    await admin.agent
      .delete(`/portal/api/api-keys/${created.body.id}`)
      .set('X-CSRF-Token', admin.csrf)
      .expect(200);

    for (const api of [two, one]) {
      const res = await api.http.get('/api/v1/me').set('Authorization', key).expect(403);
      expect(res.body.error).toBe('token_revoked');
    }
    // The other key of the institution is untouched.
    await two.http.get('/api/v1/me').set('Authorization', world.auth).expect(200);
  });

  it('an institution suspended through one process is refused by the other at once', async () => {
    const world = await createWorld(one);
    await cachedEverywhere(world);
    await one.http
      .patch(`/admin/api/v1/institutions/${world.institution.id}`)
      .set('Authorization', `Bearer ${one.operatorToken}`)
      .send({ status: 'suspended' })
      .expect(200);
    const res = await two.http.get('/api/v1/me').set('Authorization', world.auth).expect(403);
    expect(res.body.error).toBe('institution_suspended');
  });

  it('a revocation written straight into the database reaches every process', async () => {
    const world = await createWorld(one);
    await cachedEverywhere(world);
    await one.app
      .get(DataSource)
      .query(`UPDATE api_key SET revoked_at = now() WHERE id = $1`, [world.keyId]);
    for (const api of [one, two]) {
      const error = await eventually(
        async () => {
          const res = await api.http.get('/api/v1/me').set('Authorization', world.auth);
          return res.status === 403 ? res.body.error : undefined;
        },
        'the revocation to reach the process',
        5_000,
      );
      expect(error).toBe('token_revoked');
    }
  });

  it('a key expiry brought forward is in force everywhere', async () => {
    const world = await createWorld(one);
    await cachedEverywhere(world);
    await one.app
      .get(DataSource)
      .query(`UPDATE api_key SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        world.keyId,
      ]);
    const error = await eventually(
      async () => {
        const res = await two.http.get('/api/v1/me').set('Authorization', world.auth);
        return res.status === 403 ? res.body.error : undefined;
      },
      'the new expiry to reach the other process',
      5_000,
    );
    expect(error).toBe('token_expired');
  });
});
