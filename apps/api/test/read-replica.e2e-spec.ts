// A replica that cannot be reached: every read routed to it fails, so the answers show which reads
// go there. Set before the app loads its configuration.
process.env.DATABASE_REPLICA_URL = 'postgres://postgres:postgres@127.0.0.1:1/offers_replica';

import { createWorld, portalLogin, startApi, TestApi, World } from '@app/testing';

/**
 * DATABASE_REPLICA_URL serves the public reporting lists of redemptions and settlements and the
 * funnel only; statements, lookups, the portal and everything money decides read the primary.
 */
describe('read replica (DATABASE_REPLICA_URL)', () => {
  let api: TestApi;
  let world: World;
  beforeAll(async () => {
    api = await startApi();
    world = await createWorld(api);
  });
  afterAll(() => api.close());

  it.each(['redemptions', 'settlements', 'funnel'])(
    'GET /api/v1/reporting/%s reads the replica',
    async (list) => {
      const res = await api.http.get(`/api/v1/reporting/${list}`).set('Authorization', world.auth);
      expect(res.status).toBeGreaterThanOrEqual(500);
    },
  );

  it('everything else reads the primary: the key, the feed, the portal dashboard', async () => {
    await api.http.get('/api/v1/me').set('Authorization', world.auth).expect(200);
    await api.http
      .get('/api/v1/offers?cardholder_token=chk_replica_test_1')
      .set('Authorization', world.auth)
      .expect(200);
    const admin = await portalLogin(api, world.admin);
    await admin.agent.get('/portal/api/dashboard').expect(200);
  });
});
