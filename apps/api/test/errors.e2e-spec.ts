import { createWorld, startApi, TestApi, World } from '@app/testing';

describe('the one error shape', () => {
  let api: TestApi;
  let world: World;
  beforeAll(async () => {
    api = await startApi();
    world = await createWorld(api);
  });
  afterAll(() => api.close());

  const op = () => `Bearer ${api.operatorToken}`;

  it('400 invalid_json for a body that is not JSON', async () => {
    const res = await api.http
      .post('/admin/api/v1/merchants')
      .set('Authorization', op())
      .set('Content-Type', 'application/json')
      .send('{"name": "x",')
      .expect(400);
    expect(res.body).toEqual({
      error: 'invalid_json',
      message: expect.any(String),
      request_id: res.headers['x-request-id'],
    });
  });

  it('413 payload_too_large past 1 MiB', async () => {
    const res = await api.http
      .post('/admin/api/v1/merchants')
      .set('Authorization', op())
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(1_100_000), category: 'food' }))
      .expect(413);
    expect(res.body.error).toBe('payload_too_large');
  });

  it('the batch path accepts bodies up to 2 MiB before it refuses', async () => {
    // 1.5 MiB: over the general limit, under the batch one. Whatever the route answers, it is not 413.
    const body = JSON.stringify({ transactions: [], pad: 'x'.repeat(1_500_000) });
    const res = await api.http
      .post('/api/v1/transactions/batch')
      .set('Authorization', world.auth)
      .set('Content-Type', 'application/json')
      .send(body);
    expect(res.status).not.toBe(413);
    const big = JSON.stringify({ transactions: [], pad: 'x'.repeat(2_200_000) });
    const tooBig = await api.http
      .post('/api/v1/transactions/batch')
      .set('Authorization', world.auth)
      .set('Content-Type', 'application/json')
      .send(big);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error).toBe('payload_too_large');
  });

  it('404 not_found for unknown routes, with a request id', async () => {
    const res = await api.http.get('/api/v1/nothing-here').expect(404);
    expect(res.body).toEqual({
      error: 'not_found',
      message: expect.any(String),
      request_id: res.headers['x-request-id'],
    });
  });

  it('echoes a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const ok = await api.http.get('/health').set('X-Request-Id', 'trace-abc-12345678').expect(200);
    expect(ok.headers['x-request-id']).toBe('trace-abc-12345678');
    const bad = await api.http.get('/health').set('X-Request-Id', 'bad id with spaces').expect(200);
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('validation errors list every bad field', async () => {
    const res = await api.http
      .post('/admin/api/v1/institutions')
      .set('Authorization', op())
      .send({ plan: 'gold', extra: true })
      .expect(400);
    expect(res.body.error).toBe('validation_failed');
    expect([...new Set(res.body.details.map((d: { field: string }) => d.field))].sort()).toEqual([
      'extra',
      'name',
      'plan',
    ]);
  });

  it('sends security headers and no X-Powered-By', async () => {
    const res = await api.http.get('/health').expect(200);
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['strict-transport-security']).toBeDefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('health and readiness', async () => {
    expect((await api.http.get('/health').expect(200)).body).toEqual({ status: 'ok' });
    expect((await api.http.get('/ready').expect(200)).body).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', redis: 'ok' },
    });
  });

  it('exposes Prometheus metrics with request latency by route template', async () => {
    await api.http.get('/api/v1/me').set('Authorization', world.auth).expect(200);
    const res = await api.http.get('/metrics').expect(200);
    expect(res.text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api\/v1\/me"/);
    expect(res.text).not.toContain(world.apiKey);
  });
});
