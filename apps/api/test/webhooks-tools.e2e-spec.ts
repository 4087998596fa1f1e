// Own BullMQ prefix, a fast relay and a slow replay pace (2 a second) so the pacing shows.
Object.assign(process.env, {
  QUEUE_PREFIX: `e2e-webhook-tools-${process.pid}`,
  WEBHOOK_RELAY_INTERVAL_MS: '200',
  WEBHOOK_REPLAY_RATE_PER_S: '2',
});

import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { WebhookReplays } from '@app/core';
import {
  clockPast,
  configureWebhook,
  createWorld,
  eventually,
  insertRedemptionDelivery,
  jobsSettled,
  obliterateQueues,
  portalLogin,
  ReceivedRequest,
  startApi,
  startWorker,
  TestApi,
  WebhookReceiver,
  World,
} from '@app/testing';
import { closeQueue, openQueue, QUEUES } from '@app/queue';

describe('webhook tools: test event, replay, attempt detail, search', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let db: DataSource;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    api = await startApi();
    worker = await startWorker();
    db = api.app.get(DataSource);
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await worker?.close();
    await obliterateQueues(api, [QUEUES.webhooks]);
    await api.close();
    await receiver.stop();
  });

  const createdAt = async (deliveryId: string): Promise<Date> =>
    (await db.query(`SELECT created_at FROM webhook_delivery WHERE id = $1`, [deliveryId]))[0]
      .created_at;
  /** Every attempt job of the delivery has run: whatever could be sent for it has been. */
  async function attemptsSettled(deliveryId: string): Promise<void> {
    const config = api.app.get(AppConfig);
    const q = openQueue(config.redis, config.queuePrefix, QUEUES.webhooks);
    await jobsSettled(q, `wh-${deliveryId}-`, `delivery ${deliveryId}`).finally(() =>
      closeQueue(q),
    );
  }

  async function setUp(configured = true) {
    const world = await createWorld(api);
    const admin = await portalLogin(api, world.admin);
    if (configured) {
      await configureWebhook(admin, receiver.url);
    }
    return { world, admin };
  }
  type Portal = Awaited<ReturnType<typeof setUp>>['admin'];

  const forDelivery = (id: string) =>
    receiver.received.filter((r) => r.headers['x-service-delivery-id'] === id);
  const mine = (w: World) => (r: ReceivedRequest) =>
    JSON.parse(r.rawBody.toString() || '{}').institution_id === w.institution.id;
  const detail = (p: Portal, id: string) =>
    p.agent
      .get(`/portal/api/webhook/deliveries/${id}`)
      .expect(200)
      .then((r) => r.body);
  const settled = (p: Portal, id: string) =>
    eventually(async () => {
      const d = await detail(p, id);
      return d.status !== 'pending' ? d : null;
    }, `delivery ${id} settled`);

  it('a test event: sent now, its attempt shows with headers (signatures shortened), recorded; portal and admin API', async () => {
    const { world, admin } = await setUp();
    const member = await portalLogin(api, world.member);
    const accepted = await member.agent
      .post('/portal/api/webhook/test')
      .set('X-CSRF-Token', member.csrf)
      .expect(202);
    expect(accepted.body).toEqual({
      id: expect.any(String),
      event: 'webhook.test',
      status: 'pending',
    });
    const id = accepted.body.id;
    const [req] = await eventually(
      async () => (forDelivery(id).length ? forDelivery(id) : null),
      'the test event',
    );
    expect(JSON.parse(req.rawBody.toString())).toEqual({
      event: 'webhook.test',
      institution_id: world.institution.id,
      occurred_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      message: expect.any(String),
    });
    expect(req.headers['x-service-event']).toBe('webhook.test');
    const d = await settled(admin, id);
    expect(d).toMatchObject({ event: 'webhook.test', status: 'delivered', redemption_id: null });
    const [attempt] = d.attempts;
    expect(attempt).toMatchObject({
      http_status: 200,
      error_class: null,
      response_excerpt: 'ok',
      duration_ms: expect.any(Number),
      url: receiver.url,
    });
    const h = attempt.request_headers;
    expect(h['X-Service-Signature-V2']).toBe(
      `${String(req.headers['x-service-signature-v2']).slice(0, 15)}…`,
    );
    expect(h['X-Service-Signature']).toMatch(/^sha256=[0-9a-f]{8}…$/);
    expect(h['webhook-signature']).toMatch(/^v1,\S{8}…$/);
    expect(h['X-Service-Delivery-Id']).toBe(id);
    expect(h['Content-Type']).toBe('application/json');
    expect(JSON.stringify(d)).not.toContain(String(req.headers['x-service-signature-v2']));
    // the operator can send one too
    const byOperator = await api.http
      .post(`/admin/api/v1/institutions/${world.institution.id}/webhook/test`)
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .expect(202);
    await settled(admin, byOperator.body.id);
    const events = await db.query(
      `SELECT actor, details FROM security_event WHERE institution_id = $1 AND type = 'webhook.test_sent' ORDER BY created_at`,
      [world.institution.id],
    );
    expect(events).toEqual([
      { actor: world.member.email, details: { delivery_id: id } },
      { actor: 'operator', details: { delivery_id: byOperator.body.id } },
    ]);
    // not configured: 409; unknown institution: 404
    const bare = await setUp(false);
    expect(
      (
        await bare.admin.agent
          .post('/portal/api/webhook/test')
          .set('X-CSRF-Token', bare.admin.csrf)
          .expect(409)
      ).body.error,
    ).toBe('webhook_not_configured');
    await api.http
      .post(`/admin/api/v1/institutions/${randomUUID()}/webhook/test`)
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .expect(404);
  });

  it('deliveries can be searched by delivery id, redemption, offer and date range, and filtered by event type', async () => {
    const { world, admin } = await setUp();
    const a = await insertRedemptionDelivery(db, world.institution.id);
    await clockPast(await createdAt(a.id), 'delivery a');
    const [{ t }] = await db.query(`SELECT now() AS t`);
    await clockPast(t);
    const b = await insertRedemptionDelivery(db, world.institution.id);
    const test = (
      await admin.agent.post('/portal/api/webhook/test').set('X-CSRF-Token', admin.csrf).expect(202)
    ).body.id;
    const ids = async (query: string) =>
      (await admin.agent.get(`/portal/api/webhook/deliveries?${query}`).expect(200)).body.data.map(
        (d: { id: string }) => d.id,
      );
    expect(await ids('')).toEqual([test, b.id, a.id]);
    expect(await ids(`id=${a.id}`)).toEqual([a.id]);
    expect(await ids(`redemption_id=${b.redemptionId}`)).toEqual([b.id]);
    expect(await ids(`offer_id=${a.payload.offer_id}`)).toEqual([a.id]);
    expect(await ids(`from=${encodeURIComponent(t.toISOString())}`)).toEqual([test, b.id]);
    expect(await ids(`to=${encodeURIComponent(t.toISOString())}`)).toEqual([a.id]);
    expect(await ids('event=webhook.test')).toEqual([test]);
    expect(await ids('event=redemption.completed&limit=1')).toEqual([b.id]);
    for (const bad of ['event=nope', 'id=x', 'offer_id=1', 'from=yesterday'])
      expect(
        (await admin.agent.get(`/portal/api/webhook/deliveries?${bad}`).expect(400)).body.error,
      ).toBe('validation_failed');
    // another institution's delivery is never found
    const other = await setUp();
    expect(
      (await other.admin.agent.get(`/portal/api/webhook/deliveries?id=${a.id}`).expect(200)).body
        .data,
    ).toEqual([]);
  });

  it('replay after an outage: every failed delivery since the time is redelivered once, paced, with progress; exact counts', async () => {
    const { world, admin } = await setUp();
    const outage = { on: true };
    receiver.respondWith((r, _n, res) => {
      if (mine(world)(r) && outage.on) return void res.writeHead(410).end('gone'); // fails at once
      res.writeHead(200).end('ok');
    });
    const before = await insertRedemptionDelivery(db, world.institution.id);
    await settled(admin, before.id);
    await clockPast(await createdAt(before.id), 'the delivery before');
    const since = new Date();
    await clockPast(since);
    const failed: string[] = [];
    for (let i = 0; i < 6; i++)
      failed.push((await insertRedemptionDelivery(db, world.institution.id)).id);
    for (const id of failed) expect(await settled(admin, id)).toMatchObject({ status: 'failed' });
    outage.on = false;
    const fine = await insertRedemptionDelivery(db, world.institution.id);
    expect(await settled(admin, fine.id)).toMatchObject({ status: 'delivered' });
    const requestsBefore = receiver.received.filter(mine(world)).length;

    const started = await admin.agent
      .post('/portal/api/webhook/replays')
      .set('X-CSRF-Token', admin.csrf)
      .send({ since: since.toISOString() })
      .expect(202);
    expect(started.body).toMatchObject({ status: 'running', total: 6, done: 0 });
    const again = await admin.agent
      .post('/portal/api/webhook/replays')
      .set('X-CSRF-Token', admin.csrf)
      .send({ since: since.toISOString() })
      .expect(409);
    expect(again.body.error).toBe('replay_running');
    // A worker set to another pace (100 a second) keeps the pace the replay was requested with.
    await api.app.get(WebhookReplays).step(100);
    const paced = await admin.agent
      .get(`/portal/api/webhook/replays/${started.body.id}`)
      .expect(200);
    expect(paced.body.done).toBeLessThanOrEqual(2);

    const seen = new Set<number>();
    const done = await eventually(
      async () => {
        const r = (
          await admin.agent.get(`/portal/api/webhook/replays/${started.body.id}`).expect(200)
        ).body;
        seen.add(r.done);
        return r.status === 'done' ? r : null;
      },
      'the replay to finish',
      30_000,
      100,
    );
    expect(done).toMatchObject({ total: 6, done: 6, finished_at: expect.any(String) });
    expect([...seen].some((n) => n > 0 && n < 6)).toBe(true); // progress was visible on the way
    for (const id of failed)
      expect(await settled(admin, id)).toMatchObject({ status: 'delivered', redelivery_count: 1 });
    for (const id of failed) await attemptsSettled(id);
    const replayed = receiver.received.filter(mine(world)).slice(requestsBefore);
    const replayedIds = replayed.map((r) => String(r.headers['x-service-delivery-id']));
    expect(replayedIds.sort()).toEqual([...failed].sort()); // each once, nothing else
    expect(new Set(replayedIds).size).toBe(6);
    // paced: 2 a second
    const times = replayed.map((r) => r.receivedAt).sort((x, y) => x - y);
    expect(times[5] - times[0]).toBeGreaterThanOrEqual(1_500);
    expect(
      (await admin.agent.get('/portal/api/webhook/replays').expect(200)).body.data[0],
    ).toMatchObject({
      id: started.body.id,
      status: 'done',
    });
    const [event] = await db.query(
      `SELECT actor, details FROM security_event WHERE institution_id = $1 AND type = 'webhook.replay_started'`,
      [world.institution.id],
    );
    expect(event).toMatchObject({
      actor: world.admin.email,
      details: { replay_id: started.body.id, total: 6, since: since.toISOString() },
    });
    // members may not start one; bad ranges are refused; nothing left: done at once
    const member = await portalLogin(api, world.member);
    await member.agent
      .post('/portal/api/webhook/replays')
      .set('X-CSRF-Token', member.csrf)
      .send({ since: since.toISOString() })
      .expect(403);
    for (const bad of [
      {},
      { since: 'yesterday' },
      { since: new Date(Date.now() + 60_000).toISOString() },
    ])
      expect(
        (
          await admin.agent
            .post('/portal/api/webhook/replays')
            .set('X-CSRF-Token', admin.csrf)
            .send(bad)
            .expect(400)
        ).body.error,
      ).toBe('validation_failed');
    const empty = await admin.agent
      .post('/portal/api/webhook/replays')
      .set('X-CSRF-Token', admin.csrf)
      .send({ since: since.toISOString() })
      .expect(202);
    expect(empty.body).toMatchObject({ status: 'done', total: 0, done: 0 });

    // the dashboard chart: 6 replayed + 1 delivered; the one failed before `since` stays failed
    expect(await settled(admin, before.id)).toMatchObject({
      status: 'failed',
      redelivery_count: 0,
    });
    const stats = (await admin.agent.get('/portal/api/webhook/stats').expect(200)).body;
    const sum = (k: 'delivered' | 'failed') =>
      stats.hours.reduce((n: number, h: Record<string, number>) => n + h[k], 0);
    expect({ delivered: sum('delivered'), failed: sum('failed') }).toEqual({
      delivered: 7,
      failed: 1,
    });
    expect(stats.hours[0].hour).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });
});
