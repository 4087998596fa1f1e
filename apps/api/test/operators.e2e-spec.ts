import { Logger } from '@nestjs/common';
import type { Server } from 'http';
import type { AddressInfo } from 'net';
import request from 'supertest';
import { createWorld, startApi, TestApi, uniq } from '@app/testing';
import { serveMetrics } from '../src/operations/metrics-server';

/** What operators get: the queue dashboard behind the operator token, and /metrics. */
describe('operators: queue dashboard and metrics', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  describe('queue dashboard (/admin/queues)', () => {
    it('refuses without the operator token and asks a browser for it', async () => {
      const res = await api.http.get('/admin/queues').expect(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="operators"/);
      expect(res.body).toMatchObject({ error: 'unauthorized' });
      const wrong = await api.http
        .get('/admin/queues/api/queues')
        .set('Authorization', 'Bearer not-the-operator-token-0123456789abcdef')
        .expect(401);
      expect(wrong.body).toMatchObject({ error: 'invalid_token' });
    });

    it('shows every queue to the operator (Bearer or Basic with the token as password)', async () => {
      const page = await api.http
        .get('/admin/queues')
        .set('Authorization', `Bearer ${api.operatorToken}`)
        .expect(200);
      expect(page.text).toContain('<div id="root">');
      const basic = Buffer.from(`operator:${api.operatorToken}`).toString('base64');
      const queues = await api.http
        .get('/admin/queues/api/queues')
        .set('Authorization', `Basic ${basic}`)
        .expect(200);
      expect(queues.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(
        ['csv-import', 'key-reminders', 'matching', 'privacy', 'settlement', 'webhooks'].sort(),
      );
    });

    it('refuses changes sent from another origin', async () => {
      await api.http
        .put('/admin/queues/api/queues/matching/retry/failed')
        .set('Authorization', `Bearer ${api.operatorToken}`)
        .set('Origin', 'https://evil.example')
        .expect(403);
    });
  });

  describe('/metrics', () => {
    it('has queue depth and age, ingestion and HTTP metrics', async () => {
      const world = await createWorld(api, { merchants: [{}] });
      await api.http
        .post('/api/v1/transactions')
        .set('Authorization', world.auth)
        .send({
          transaction_ref: uniq('m-'),
          cardholder_token: `chk_${uniq()}`,
          card_token: `ctk_${uniq()}`,
          amount: 10,
          transacted_at: new Date().toISOString(),
          card_acceptor_id: world.merchants[0].identifiers[0].value,
        })
        .expect(202);
      const text = (await api.http.get('/metrics').expect(200)).text;
      expect(text).toMatch(/^queue_jobs\{queue="matching",state="wait"\} \d+/m);
      expect(text).toMatch(/^queue_jobs\{queue="webhooks",state="failed"\} \d+/m);
      expect(text).toMatch(/^queue_oldest_waiting_job_age_seconds\{queue="matching"\} [\d.]+/m);
      expect(text).toMatch(/^transactions_ingested_total\{source="api",result="accepted"\} [1-9]/m);
      expect(text).toContain('http_request_duration_seconds_bucket');
    });

    it('with METRICS_PORT set, the public port answers 404 at /metrics', async () => {
      process.env.METRICS_PORT = '9464';
      const separate = await startApi().finally(() => delete process.env.METRICS_PORT);
      try {
        const res = await separate.http.get('/metrics').expect(404);
        expect(res.body).toMatchObject({ error: 'not_found' });
      } finally {
        await separate.close();
      }
    });

    /** An api started with these variables set (config is read at start), then restored. */
    async function apiWith(env: Record<string, string>): Promise<TestApi> {
      const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
      Object.assign(process.env, env);
      try {
        return await startApi();
      } finally {
        for (const [k, v] of Object.entries(saved))
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
      }
    }

    it('with METRICS_TOKEN set, /metrics on the public port needs it as a bearer token', async () => {
      const token = 'metrics-token-0123456789abcdef-0123';
      const guarded = await apiWith({ METRICS_TOKEN: token });
      try {
        const none = await guarded.http.get('/metrics').expect(401);
        expect(none.body).toMatchObject({ error: 'unauthorized' });
        await guarded.http.get('/metrics').set('Authorization', `Bearer ${token}x`).expect(401);
        await guarded.http
          .get('/metrics')
          .set('Authorization', `Bearer ${api.operatorToken}`)
          .expect(401);
        const ok = await guarded.http
          .get('/metrics')
          .set('Authorization', `Bearer ${token}`)
          .expect(200);
        expect(ok.text).toContain('queue_jobs');
      } finally {
        await guarded.close();
      }
    });

    it('in production without METRICS_PORT or METRICS_TOKEN: 404, and a start-up warning says how to enable it', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn');
      let warnings: string[] = [];
      const prod = await apiWith({ NODE_ENV: 'production' }).finally(() => {
        warnings = warn.mock.calls.map((c) => String(c[0]));
        warn.mockRestore();
      });
      try {
        expect(warnings).toContainEqual(
          expect.stringMatching(
            /\/metrics on PORT answers 404[\s\S]*METRICS_TOKEN[\s\S]*METRICS_PORT/,
          ),
        );
        const res = await prod.http.get('/metrics').expect(404);
        expect(res.body).toMatchObject({ error: 'not_found' });
        await prod.http
          .get('/metrics')
          .set('Authorization', `Bearer ${api.operatorToken}`)
          .expect(404);
      } finally {
        await prod.close();
      }
      const withToken = await apiWith({ NODE_ENV: 'production', METRICS_TOKEN: 'p'.repeat(32) });
      try {
        await withToken.http
          .get('/metrics')
          .set('Authorization', `Bearer ${'p'.repeat(32)}`)
          .expect(200);
      } finally {
        await withToken.close();
      }
    });

    it('can be served on a port of its own', async () => {
      const server: Server = await serveMetrics(0, '127.0.0.1');
      try {
        const port = (server.address() as AddressInfo).port;
        const res = await request(`http://127.0.0.1:${port}`).get('/metrics').expect(200);
        expect(res.text).toContain('queue_jobs');
        await request(`http://127.0.0.1:${port}`).get('/api/v1/me').expect(404);
      } finally {
        server.close();
      }
    });
  });
});
