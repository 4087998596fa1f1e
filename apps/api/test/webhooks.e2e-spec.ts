// Own BullMQ prefix, a short timeout (the slow-receiver test), a fast relay; all read at app start.
Object.assign(process.env, {
  QUEUE_PREFIX: `e2e-webhooks-${process.pid}`,
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_RELAY_INTERVAL_MS: '200',
  WEBHOOK_STUCK_AFTER_MS: '1500',
});

import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { randomUUID } from 'crypto';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  deliveryFailedBody,
  WEBHOOK_MESSAGES,
  WebhookDeliveryService,
  WebhookOutbox,
} from '@app/core';
import { maskToken, verifyWebhook } from '@app/domain';
import { closeQueue, openQueue, QUEUES } from '@app/queue';
import {
  clockPast,
  configureWebhook,
  createWorld,
  eventually,
  jobsSettled,
  obliterateQueues,
  portalLogin,
  ReceivedRequest,
  startApi,
  startWorker,
  TestApi,
  uniq,
  WebhookReceiver,
  World,
} from '@app/testing';
import { WebhookSettingsService } from '../src/webhooks/webhook-settings.service';

type Portal = Awaited<ReturnType<typeof portalLogin>>;

/** A port nobody listens on (connection refused). */
async function deadUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}/hooks`;
}

describe('redemption webhooks', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let db: DataSource;
  let receiver: WebhookReceiver;
  let webhookQueue: Queue;
  /** Every attempt job of the delivery has run: whatever could be sent for it has been. */
  const attemptsSettled = (id: string) => jobsSettled(webhookQueue, `wh-${id}-`, `delivery ${id}`);

  beforeAll(async () => {
    api = await startApi();
    worker = await startWorker();
    db = api.app.get(DataSource);
    receiver = await new WebhookReceiver().start();
    const config = api.app.get(AppConfig);
    webhookQueue = openQueue(config.redis, config.queuePrefix, QUEUES.webhooks);
  });

  afterAll(async () => {
    if (webhookQueue) await closeQueue(webhookQueue);
    await worker?.close();
    await obliterateQueues(api, [QUEUES.webhooks, QUEUES.matching]);
    await api.close();
    await receiver.stop();
  });

  /** An institution whose admin has set the URL and rotated a secret through the portal. */
  async function setUp(options: { url?: string | null; offers?: boolean } = {}) {
    const world = await createWorld(
      api,
      options.offers ? { merchants: [{}], offers: [{ min_spend: 20, cashback_amount: 5 }] } : {},
    );
    const admin = await portalLogin(api, world.admin);
    let secret = '';
    if (options.url !== null) {
      secret = await configureWebhook(admin, options.url ?? receiver.url);
    }
    return { world, admin, secret };
  }

  /**
   * A redemption and its delivery row exactly as matching writes them (used where the test is about
   * delivery, not about purchases; the first test goes through a real purchase).
   */
  async function insertDelivery(
    world: World,
    options: { enqueue?: boolean } = {},
  ): Promise<{ id: string; payload: Record<string, unknown> }> {
    const token = `chk_${uniq()}${uniq()}`;
    const id = await db.transaction(async (m) => {
      const [merchant] = await m.query(
        `INSERT INTO merchant (name, category) VALUES ($1, 'groceries') RETURNING id`,
        [uniq('M ')],
      );
      const now = Date.now();
      // An ended offer targeted at this institution only: other test files' feeds never see it.
      const [offer] = await m.query(
        `INSERT INTO offer (merchant_id, status, translations, min_spend, cashback_amount, currency, starts_at, expires_at, targeted)
         VALUES ($1, 'ended', '{"en":{"title":"t","description":"d"}}', 2000, 500, 'USD', $2, $3, true) RETURNING id`,
        [merchant.id, new Date(now - 86_400_000), new Date(now + 86_400_000)],
      );
      await m.query(`INSERT INTO offer_target (offer_id, institution_id) VALUES ($1, $2)`, [
        offer.id,
        world.institution.id,
      ]);
      const [tx] = await m.query(
        `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, instrument_token, amount, currency, transacted_at, source, status)
         VALUES ($1, $2, $3, 'ctk_1', 25, 'USD', now(), 'api', 'matched') RETURNING id`,
        [world.institution.id, uniq('ref-'), token],
      );
      const [co] = await m.query(
        `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token) VALUES ($1, $2, $3) RETURNING id`,
        [world.institution.id, offer.id, token],
      );
      const [r] = await m.query(
        `INSERT INTO redemption (institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency, purchase_amount,
                                 cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount)
         VALUES ($1, $2, $3, $4, $5, 'USD', 2500, 500, 500, 0, 500) RETURNING id, created_at`,
        [world.institution.id, tx.id, co.id, offer.id, token],
      );
      const payload = {
        event: 'redemption.completed',
        redemption_id: r.id,
        institution_id: world.institution.id,
        offer_id: offer.id,
        cardholder_token: token,
        cardholder_token_masked: maskToken(token),
        institution_payout_amount: 5,
        occurred_at: r.created_at.toISOString(),
      };
      const [d] = await m.query(
        `INSERT INTO webhook_delivery (institution_id, redemption_id, event, payload) VALUES ($1, $2, 'redemption.completed', $3) RETURNING id`,
        [world.institution.id, r.id, JSON.stringify(payload)],
      );
      return d.id as string;
    });
    // Either handed to the queue at once or, when not asked, left to the relay.
    if (options.enqueue !== false)
      await api.app
        .get(WebhookOutbox)
        .enqueueSteps([{ id, series: 0, attempt: 1, nextAttemptAt: null }]);
    const [{ payload }] = await db.query(`SELECT payload FROM webhook_delivery WHERE id = $1`, [
      id,
    ]);
    return { id, payload };
  }

  /**
   * Scripts the receiver's answers for one institution's requests (by the payload's institution_id),
   * set before its delivery exists so no attempt races the script; others get 200.
   */
  function respondFor(
    world: World,
    fn: (r: ReceivedRequest, n: number, res: import('http').ServerResponse) => void | Promise<void>,
  ): void {
    let n = 0;
    receiver.respondWith((r, _i, res) => {
      const mine = JSON.parse(r.rawBody.toString() || '{}').institution_id === world.institution.id;
      return mine ? fn(r, ++n, res) : void res.writeHead(200).end('ok');
    });
  }

  const delivery = (portal: Portal, id: string) =>
    portal.agent
      .get(`/portal/api/webhook/deliveries/${id}`)
      .expect(200)
      .then((r) => r.body);
  const forDelivery = (id: string) =>
    receiver.received.filter((r) => r.headers['x-service-delivery-id'] === id);
  async function requestsFor(
    id: string,
    count: number,
    timeoutMs = 20_000,
  ): Promise<ReceivedRequest[]> {
    return eventually(
      async () => (forDelivery(id).length >= count ? forDelivery(id) : null),
      `${count} requests for ${id}`,
      timeoutMs,
    );
  }
  async function settled(portal: Portal, id: string, timeoutMs = 20_000) {
    return eventually(
      async () => {
        const d = await delivery(portal, id);
        return d.status !== 'pending' ? d : null;
      },
      `delivery ${id} to settle`,
      timeoutMs,
    );
  }

  it('a purchase produces exactly one delivery, signed (V1 and V2) with the secret shown at rotation, payload exact', async () => {
    const { world, admin, secret } = await setUp({ offers: true });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const cardholder = `chk_${uniq()}${uniq()}`;
    const offer = world.offers[0];
    await api.http
      .post(`/api/v1/offers/${offer.id}/add`)
      .set('Authorization', world.auth)
      .send({ cardholder_token: cardholder, card_token: 'ctk_1' })
      .expect(201);
    const tx = await api.http
      .post('/api/v1/transactions')
      .set('Authorization', world.auth)
      .send({
        cardholder_token: cardholder,
        card_token: 'ctk_1',
        merchant_identifier: world.merchants[0].identifiers[0].value,
        amount: 25,
        transaction_ref: uniq('ref-'),
        transacted_at: new Date().toISOString(),
      })
      .expect(202);

    const [row] = await eventually(async () => {
      const rows = await db.query(
        `SELECT d.* FROM webhook_delivery d JOIN redemption r ON r.id = d.redemption_id WHERE r.transaction_id = $1`,
        [tx.body.id],
      );
      return rows.length ? rows : null;
    }, 'the delivery row');
    const [req] = await requestsFor(row.id, 1);
    await attemptsSettled(row.id);
    expect(forDelivery(row.id)).toHaveLength(1);
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM webhook_delivery WHERE redemption_id = $1`,
      [row.redemption_id],
    );
    expect(n).toBe(1);

    expect(req.method).toBe('POST');
    expect(verifyWebhook(req.rawBody, req.headers, secret)).toMatchObject({
      ok: true,
      scheme: 'v2',
    });
    expect(verifyWebhook(req.rawBody, req.headers, secret, { scheme: 'v1' })).toMatchObject({
      ok: true,
      scheme: 'v1',
    });
    expect(verifyWebhook(req.rawBody, req.headers, 'whsec_someone-else')).toMatchObject({
      ok: false,
    });
    expect(req.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(req.headers['x-service-signature-v2']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(Math.abs(Number(req.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(
      30,
    );
    expect(req.headers['x-service-event']).toBe('redemption.completed');
    expect(req.headers['x-service-delivery-id']).toBe(row.id);
    expect(req.headers['user-agent']).toMatch(/^PaymentLinkedOffers-Webhooks\/\d/);
    expect(req.headers['content-type']).toBe('application/json');

    const body = JSON.parse(req.rawBody.toString('utf8'));
    expect(Object.keys(body)).toEqual([
      'event',
      'redemption_id',
      'institution_id',
      'offer_id',
      'cardholder_token',
      'cardholder_token_masked',
      'institution_payout_amount',
      'occurred_at',
      'transaction_ref',
      'purchase_amount',
      'merchant_funded_amount',
      'goal_round',
      'currency',
    ]);
    expect(body).toEqual({
      event: 'redemption.completed',
      redemption_id: row.redemption_id,
      institution_id: world.institution.id,
      offer_id: offer.id,
      cardholder_token: cardholder,
      cardholder_token_masked: `${cardholder.slice(0, 4)}****${cardholder.slice(-4)}`,
      institution_payout_amount: expect.any(Number),
      occurred_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      transaction_ref: expect.any(String),
      purchase_amount: expect.any(Number),
      merchant_funded_amount: expect.any(Number),
      goal_round: null,
      currency: 'USD',
    });
    expect(body.institution_payout_amount).toBeGreaterThan(0);

    const d = await settled(admin, row.id);
    expect(d).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      redemption_id: row.redemption_id,
    });
    expect(d.attempts).toEqual([
      expect.objectContaining({
        attempt_number: 1,
        trigger: 'automatic',
        url: receiver.url,
        http_status: 200,
        error_class: null,
        response_excerpt: 'ok',
      }),
    ]);
  });

  it('500 twice then 200: three attempts logged, delivered once, then nothing more', async () => {
    const { world, admin, secret } = await setUp();
    respondFor(
      world,
      (_r, n, res) => void res.writeHead(n <= 2 ? 500 : 200).end(n <= 2 ? 'boom' : 'ok'),
    );
    const { id } = await insertDelivery(world);
    const reqs = await requestsFor(id, 3);
    const d = await settled(admin, id);
    await attemptsSettled(id);
    expect(forDelivery(id)).toHaveLength(3);
    for (const r of reqs) expect(verifyWebhook(r.rawBody, r.headers, secret).ok).toBe(true);
    expect(new Set(reqs.map((r) => r.rawBody.toString())).size).toBe(1);
    expect(d).toMatchObject({
      status: 'delivered',
      attempt_count: 3,
      next_attempt_at: null,
      delivered_at: expect.any(String),
    });
    expect(
      d.attempts.map(
        (a: {
          attempt_number: number;
          http_status: number;
          error_class: string | null;
          response_excerpt: string;
        }) => [a.attempt_number, a.http_status, a.error_class, a.response_excerpt],
      ),
    ).toEqual([
      [1, 500, 'http_status', 'boom'],
      [2, 500, 'http_status', 'boom'],
      [3, 200, null, 'ok'],
    ]);
    for (const a of d.attempts) {
      expect(a).toMatchObject({
        trigger: 'automatic',
        url: receiver.url,
        duration_ms: expect.any(Number),
        started_at: expect.any(String),
      });
    }
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  it('a receiver down for all attempts: nine attempts, failed, one inbox message; redelivery after recovery keeps the delivery id', async () => {
    const { world, admin } = await setUp({ url: await deadUrl() });
    const { id } = await insertDelivery(world, { enqueue: false }); // through the relay this time
    const d = await settled(admin, id, 40_000);
    expect(d).toMatchObject({
      status: 'failed',
      status_reason: 'attempts_exhausted',
      attempt_count: 9,
    });
    expect(d.attempts).toHaveLength(9);
    expect(d.attempts.map((a: { attempt_number: number }) => a.attempt_number)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(new Set(d.attempts.map((a: { error_class: string }) => a.error_class))).toEqual(
      new Set(['connection_refused']),
    );
    // the schedule: gaps grow (50 ms base: 50, 100, 200, ... ±10%)
    const starts = d.attempts.map((a: { started_at: string }) => Date.parse(a.started_at));
    expect(starts[8] - starts[0]).toBeGreaterThan(0.85 * 50 * (1 + 2 + 4 + 8 + 16 + 30 + 60 + 120));

    const inbox = async () =>
      db.query(
        `SELECT kind, title, body, dedupe_key FROM inbox_message WHERE institution_id = $1`,
        [world.institution.id],
      );
    expect(await inbox()).toEqual([
      {
        kind: 'webhook.failed',
        title: WEBHOOK_MESSAGES.failed.title,
        body: deliveryFailedBody(id, 'attempts_exhausted', {
          httpStatus: null,
          errorClass: 'connection_refused',
        }),
        dedupe_key: `webhook.failed:${id}`,
      },
    ]);

    // recovery: the endpoint works again; a member redelivers
    await admin.agent
      .put('/portal/api/webhook')
      .set('X-CSRF-Token', admin.csrf)
      .send({ url: receiver.url })
      .expect(200);
    const member = await portalLogin(api, world.member);
    const accepted = await member.agent
      .post(`/portal/api/webhook/deliveries/${id}/redeliver`)
      .set('X-CSRF-Token', member.csrf)
      .expect(202);
    expect(accepted.body).toEqual({ id, status: 'pending', redelivery: 1 });
    const [req] = await requestsFor(id, 1);
    expect(req.headers['x-service-delivery-id']).toBe(id);
    const after = await settled(admin, id);
    expect(after).toMatchObject({
      status: 'delivered',
      attempt_count: 10,
      redelivery_count: 1,
      status_reason: null,
    });
    expect(after.attempts[9]).toMatchObject({
      attempt_number: 10,
      trigger: 'manual',
      http_status: 200,
    });
    expect(await inbox()).toHaveLength(1);
    await attemptsSettled(id);
    expect(forDelivery(id)).toHaveLength(1);
  });

  it('410 stops the retries at once (failed, one inbox message)', async () => {
    const { world, admin } = await setUp();
    respondFor(world, (_r, _n, res) => void res.writeHead(410).end('gone'));
    const { id } = await insertDelivery(world);
    const d = await settled(admin, id);
    await attemptsSettled(id);
    expect(forDelivery(id)).toHaveLength(1);
    expect(d).toMatchObject({ status: 'failed', status_reason: 'gone', attempt_count: 1 });
    const msgs = await db.query(`SELECT dedupe_key FROM inbox_message WHERE institution_id = $1`, [
      world.institution.id,
    ]);
    expect(msgs).toEqual([{ dedupe_key: `webhook.failed:${id}` }]);
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  it('a redirect is not followed: the attempt fails and is retried at the same URL', async () => {
    const target = await new WebhookReceiver().start();
    const { world, admin } = await setUp();
    respondFor(
      world,
      (_r, n, res) =>
        void (n === 1
          ? res.writeHead(307, { Location: target.url }).end()
          : res.writeHead(200).end('ok')),
    );
    const { id } = await insertDelivery(world);
    const d = await settled(admin, id);
    expect(target.received).toHaveLength(0);
    expect(
      d.attempts.map((a: { http_status: number; error_class: string | null }) => [
        a.http_status,
        a.error_class,
      ]),
    ).toEqual([
      [307, 'http_status'],
      [200, null],
    ]);
    expect(d.attempts[0].error_message).toContain('redirect not followed');
    await target.stop();
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  it('a slow receiver times out (WEBHOOK_TIMEOUT_MS) and is retried', async () => {
    const { world, admin } = await setUp();
    respondFor(world, async (_r, n, res) => {
      // slower than WEBHOOK_TIMEOUT_MS (1 s): the receiver's behaviour, not a wait of the test
      if (n === 1) await new Promise((r) => setTimeout(r, 1_500));
      if (!res.destroyed) res.writeHead(200).end('ok');
    });
    const { id } = await insertDelivery(world);
    const d = await settled(admin, id);
    expect(
      d.attempts.map((a: { error_class: string | null; http_status: number | null }) => [
        a.error_class,
        a.http_status,
      ]),
    ).toEqual([
      ['timeout', null],
      [null, 200],
    ]);
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(950);
    expect(d.attempts[0].duration_ms).toBeLessThan(1_500);
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  it('429 with Retry-After waits at least that long, capped at twice the step', async () => {
    const { world, admin } = await setUp();
    respondFor(
      world,
      (_r, n, res) =>
        void (n === 1
          ? res.writeHead(429, { 'Retry-After': '30' }).end()
          : res.writeHead(200).end('ok')),
    );
    const { id } = await insertDelivery(world);
    const reqs = await requestsFor(id, 2);
    await settled(admin, id);
    // step 1 is 50 ms (±10%); Retry-After 30 s is honoured up to the cap of 2 × 50 ms
    const gap = reqs[1].receivedAt - reqs[0].receivedAt;
    expect(gap).toBeGreaterThanOrEqual(95);
    expect(gap).toBeLessThan(5_000);
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  it('rotating the secret signs the next attempt with the new secret', async () => {
    const { world, admin, secret: first } = await setUp();
    let second = '';
    respondFor(world, async (_r, n, res) => {
      if (n === 1) {
        second = (
          await admin.agent
            .post('/portal/api/webhook/secret')
            .set('X-CSRF-Token', admin.csrf)
            .expect(201)
        ).body.signing_secret;
        res.writeHead(503).end();
      } else res.writeHead(200).end('ok');
    });
    const { id } = await insertDelivery(world);
    const [a, b] = await requestsFor(id, 2);
    expect(second).not.toBe(first);
    expect(verifyWebhook(a.rawBody, a.headers, first).ok).toBe(true);
    expect(verifyWebhook(b.rawBody, b.headers, second).ok).toBe(true);
    expect(verifyWebhook(b.rawBody, b.headers, first).ok).toBe(false);
    expect(verifyWebhook(b.rawBody, b.headers, [first, second]).ok).toBe(true);
    const events = await db.query(
      `SELECT type, actor FROM security_event WHERE institution_id = $1 ORDER BY created_at`,
      [world.institution.id],
    );
    expect(events.filter((e: { type: string }) => e.type.startsWith('webhook.'))).toEqual([
      { type: 'webhook.url_changed', actor: world.admin.email },
      { type: 'webhook.secret_rotated', actor: world.admin.email },
      { type: 'webhook.secret_rotated', actor: world.admin.email },
    ]);
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  /** The Standard Webhooks headers of a received request, as the verifier libraries take them. */
  const standardHeaders = (r: ReceivedRequest) => ({
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });
  const standardVerifies = (r: ReceivedRequest, secret: string) => {
    try {
      new Webhook(secret).verify(r.rawBody.toString('utf8'), standardHeaders(r));
      return true;
    } catch {
      return false;
    }
  };

  it('Standard Webhooks headers verify with the standardwebhooks package (webhook-id is the delivery id)', async () => {
    const { world, secret } = await setUp();
    const { id, payload } = await insertDelivery(world);
    const [req] = await requestsFor(id, 1);
    expect(req.headers['webhook-id']).toBe(id);
    expect(req.headers['webhook-timestamp']).toBe(req.headers['x-service-timestamp']);
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(req.rawBody.toString('utf8'), standardHeaders(req))).toEqual(
      payload,
    );
    expect(standardVerifies(req, 'whsec_' + Buffer.alloc(32, 1).toString('base64'))).toBe(false);
    // a tampered body fails
    expect(() =>
      new Webhook(secret).verify(req.rawBody.toString('utf8') + ' ', standardHeaders(req)),
    ).toThrow();
  });

  it('rotation with overlap: the old secret keeps verifying (second signature) until the overlap ends, then fails', async () => {
    const { world, admin, secret: old } = await setUp();
    let fresh = '';
    let until = '';
    respondFor(world, async (_r, n, res) => {
      if (n === 1) {
        const rotated = (
          await admin.agent
            .post('/portal/api/webhook/secret')
            .set('X-CSRF-Token', admin.csrf)
            .send({ overlap_seconds: 3 })
            .expect(201)
        ).body;
        fresh = rotated.signing_secret;
        until = rotated.previous_secret_expires_at;
        res.writeHead(503).end();
      } else res.writeHead(200).end('ok');
    });
    const first = await insertDelivery(world);
    const [a, b] = await requestsFor(first.id, 2);
    expect(Date.parse(until) - Date.now()).toBeGreaterThan(0);
    expect(Date.parse(until) - Date.now()).toBeLessThanOrEqual(3_000);
    // before the rotation: one signature, the old secret
    expect(String(a.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardVerifies(a, old)).toBe(true);
    // during the overlap: both signatures; a receiver still on the old secret verifies, and so
    // does one already on the new; the service's own headers carry the new secret's
    expect(String(b.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(standardVerifies(b, old)).toBe(true);
    expect(standardVerifies(b, fresh)).toBe(true);
    expect(verifyWebhook(b.rawBody, b.headers, fresh).ok).toBe(true);
    expect(verifyWebhook(b.rawBody, b.headers, old).ok).toBe(false);
    const during = (await admin.agent.get('/portal/api/webhook').expect(200)).body;
    expect(during.previous_secret_expires_at).toBe(until);

    // after the overlap: only the new secret signs
    await clockPast(until, 'the overlap');
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
    const second = await insertDelivery(world);
    const [c] = await requestsFor(second.id, 1);
    expect(String(c.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardVerifies(c, old)).toBe(false);
    expect(standardVerifies(c, fresh)).toBe(true);
    expect((await admin.agent.get('/portal/api/webhook').expect(200)).body).toMatchObject({
      previous_secret_expires_at: null,
    });
  });

  it('rotation: "expire now" (overlap 0), ending an overlap early, the 7-day bound, security activity', async () => {
    const { world, admin, secret: first } = await setUp();
    const rotate = (body?: object) =>
      admin.agent
        .post('/portal/api/webhook/secret')
        .set('X-CSRF-Token', admin.csrf)
        .send(body ?? {});
    // default: 24 h
    const r1 = (await rotate().expect(201)).body;
    const hours = (Date.parse(r1.previous_secret_expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    for (const bad of [
      { overlap_seconds: 604_801 },
      { overlap_seconds: -1 },
      { overlap_seconds: 1.5 },
      { overlap_seconds: '60' },
    ])
      expect((await rotate(bad).expect(400)).body.error).toBe('validation_failed');
    expect(
      (await rotate({ overlap_seconds: 604_800 }).expect(201)).body.previous_secret_expires_at,
    ).toEqual(expect.any(String));
    // ending the overlap early
    const ended = await admin.agent
      .delete('/portal/api/webhook/secret/previous')
      .set('X-CSRF-Token', admin.csrf)
      .expect(200);
    expect(ended.body.previous_secret_expires_at).toBeNull();
    // expire now
    const r3 = (await rotate({ overlap_seconds: 0 }).expect(201)).body;
    expect(r3.previous_secret_expires_at).toBeNull();
    const { id } = await insertDelivery(world);
    const [req] = await requestsFor(id, 1);
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardVerifies(req, r3.signing_secret)).toBe(true);
    expect(standardVerifies(req, first)).toBe(false);
    const member = await portalLogin(api, world.member);
    await member.agent
      .delete('/portal/api/webhook/secret/previous')
      .set('X-CSRF-Token', member.csrf)
      .expect(403);
    const events = await db.query(
      `SELECT type, details FROM security_event WHERE institution_id = $1 AND type LIKE 'webhook.%secret%' ORDER BY created_at`,
      [world.institution.id],
    );
    expect(events.map((e: { type: string }) => e.type)).toEqual([
      'webhook.secret_rotated',
      'webhook.secret_rotated',
      'webhook.secret_rotated',
      'webhook.previous_secret_expired',
      'webhook.secret_rotated',
    ]);
    expect(events[1].details.previous_secret_expires_at).toBe(r1.previous_secret_expires_at);
    expect(JSON.stringify(events)).not.toContain('whsec_');
  });

  it('killing the worker mid-retry loses nothing and sends nothing after the success', async () => {
    const { world, admin } = await setUp();
    let closing: Promise<void> | undefined;
    respondFor(world, (_r, n, res) => {
      if (n === 1) {
        // the worker shuts down while attempt 1 is in flight: it finishes that attempt (records
        // it, queues the retry) and takes no further job
        closing = worker.close();
        setTimeout(() => res.writeHead(500).end(), 100);
      } else res.writeHead(200).end();
    });
    const { id } = await insertDelivery(world);
    await requestsFor(id, 1);
    await eventually(async () => closing !== undefined, 'the worker to start closing');
    await closing;
    const mid = await delivery(admin, id);
    expect(mid).toMatchObject({ status: 'pending', attempt_count: 1 });
    // the retry waits in the queue, and no worker is left to send it
    await eventually(async () => {
      const jobs = await webhookQueue.getJobs(['delayed', 'waiting', 'prioritized']);
      return jobs.some((j) => j.id?.startsWith(`wh-${id}-`));
    }, 'the retry to be queued');
    expect(forDelivery(id)).toHaveLength(1);
    worker = await startWorker();
    const d = await settled(admin, id);
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 2 });
    await attemptsSettled(id);
    expect(forDelivery(id)).toHaveLength(2);
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  it('a worker that died during an attempt: the attempt is logged as interrupted and the series goes on', async () => {
    const { world, admin } = await setUp();
    const { id } = await insertDelivery(world, { enqueue: false });
    // as if a worker had claimed attempt 1 and died before recording it (its lease has run out)
    await db.query(
      `UPDATE webhook_delivery SET lease_token = $2, lease_until = now() - interval '1 second', lease_started_at = now() - interval '20 seconds',
              lease_url = $3, enqueued_at = now(), next_attempt_at = now() WHERE id = $1`,
      [id, randomUUID(), receiver.url],
    );
    await api.app
      .get(WebhookOutbox)
      .enqueueSteps([{ id, series: 0, attempt: 1, nextAttemptAt: null }]);
    const d = await settled(admin, id);
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 2 });
    expect(d.attempts[0]).toMatchObject({
      attempt_number: 1,
      error_class: 'network',
      http_status: null,
      error_message: expect.stringContaining('interrupted'),
    });
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(19_000);
    expect(d.attempts[1]).toMatchObject({ attempt_number: 2, http_status: 200 });
    expect(forDelivery(id)).toHaveLength(1);
  });

  it('a job lost with Redis is re-enqueued by the relay; a duplicate job for a done step sends nothing', async () => {
    const { world, admin } = await setUp();
    const { id } = await insertDelivery(world, { enqueue: false });
    // queued long ago, due long ago, and no job exists: as after Redis lost its data
    await db.query(
      `UPDATE webhook_delivery SET enqueued_at = now() - interval '1 hour', next_attempt_at = now() - interval '1 hour' WHERE id = $1`,
      [id],
    );
    const d = await settled(admin, id);
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 1 });
    // replaying the same step (as a stalled or re-added job would) is a no-op
    const outcome = await worker
      .get(WebhookDeliveryService)
      .attempt({ deliveryId: id, series: 0, attempt: 1, trigger: 'automatic' });
    expect(outcome).toEqual({ kind: 'done' });
    await api.app
      .get(WebhookOutbox)
      .enqueueSteps([{ id, series: 0, attempt: 1, nextAttemptAt: null }]);
    await attemptsSettled(id);
    expect(forDelivery(id)).toHaveLength(1);
    // and a delivery that is not in this database is ignored
    expect(
      await worker
        .get(WebhookDeliveryService)
        .attempt({ deliveryId: randomUUID(), series: 0, attempt: 1, trigger: 'automatic' }),
    ).toEqual({ kind: 'done' });
  });

  it('no URL configured: skipped (visible), redeliverable once a URL is set', async () => {
    const { world, admin } = await setUp({ url: null });
    const { id } = await insertDelivery(world);
    const d = await settled(admin, id);
    expect(d).toMatchObject({
      status: 'skipped',
      status_reason: 'no_webhook_url',
      attempt_count: 0,
      attempts: [],
    });
    const refused = await admin.agent
      .post(`/portal/api/webhook/deliveries/${id}/redeliver`)
      .set('X-CSRF-Token', admin.csrf)
      .expect(409);
    expect(refused.body.error).toBe('webhook_not_configured');
    await admin.agent
      .put('/portal/api/webhook')
      .set('X-CSRF-Token', admin.csrf)
      .send({ url: receiver.url })
      .expect(200);
    const secret = (
      await admin.agent
        .post('/portal/api/webhook/secret')
        .set('X-CSRF-Token', admin.csrf)
        .expect(201)
    ).body.signing_secret;
    await admin.agent
      .post(`/portal/api/webhook/deliveries/${id}/redeliver`)
      .set('X-CSRF-Token', admin.csrf)
      .expect(202);
    const [req] = await requestsFor(id, 1);
    expect(verifyWebhook(req.rawBody, req.headers, secret).ok).toBe(true);
    expect(await settled(admin, id)).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      attempts: [expect.objectContaining({ trigger: 'manual' })],
    });
  });

  describe('portal API', () => {
    it('settings: members read, only admins change; the secret is never shown again', async () => {
      const { world, admin } = await setUp();
      const member = await portalLogin(api, world.member);
      expect((await member.agent.get('/portal/api/webhook').expect(200)).body).toEqual({
        url: receiver.url,
        secret_set: true,
        previous_secret_expires_at: null, // the first secret replaced none
        event_types: ['redemption.completed', 'redemption.reversed', 'redemption.settled'],
        custom_headers: [],
        max_per_second: null,
        paused_at: null,
        failing_since: null,
        client_certificate: null,
      });
      expect(
        (
          await member.agent
            .put('/portal/api/webhook')
            .set('X-CSRF-Token', member.csrf)
            .send({ url: receiver.url })
            .expect(403)
        ).body.error,
      ).toBe('forbidden');
      expect(
        (
          await member.agent
            .post('/portal/api/webhook/secret')
            .set('X-CSRF-Token', member.csrf)
            .expect(403)
        ).body.error,
      ).toBe('forbidden');
      expect(
        (await admin.agent.put('/portal/api/webhook').send({ url: receiver.url }).expect(403)).body
          .error,
      ).toBe('csrf_failed');
      await api.http.get('/portal/api/webhook').expect(401);
      const stored = await db.query(
        `SELECT webhook_secret_encrypted FROM institution WHERE id = $1`,
        [world.institution.id],
      );
      expect(stored[0].webhook_secret_encrypted).not.toContain('whsec_');
      for (const bad of [
        {},
        { url: 42 },
        { url: 'ftp://x.example/' },
        { url: 'http://user:pw@127.0.0.1/x' },
        { url: 'https://x.example/#frag' },
        { url: receiver.url, extra: 1 },
      ]) {
        const res = await admin.agent
          .put('/portal/api/webhook')
          .set('X-CSRF-Token', admin.csrf)
          .send(bad)
          .expect(400);
        expect(res.body.error).toBe('validation_failed');
      }
      expect(
        (
          await admin.agent
            .put('/portal/api/webhook')
            .set('X-CSRF-Token', admin.csrf)
            .send({ url: null })
            .expect(200)
        ).body,
      ).toEqual({
        url: null,
        secret_set: true,
        previous_secret_expires_at: null,
        event_types: ['redemption.completed', 'redemption.reversed', 'redemption.settled'],
        custom_headers: [],
        max_per_second: null,
        paused_at: null,
        failing_since: null,
        client_certificate: null,
      });
    });

    it('lists deliveries newest first with a status filter and cursor; one delivery with attempts; scoped to the institution', async () => {
      const { world, admin } = await setUp();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await insertDelivery(world)).id);
      for (const id of ids) await settled(admin, id);
      const page1 = (await admin.agent.get('/portal/api/webhook/deliveries?limit=2').expect(200))
        .body;
      expect(page1.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
      expect(page1.pagination).toEqual({ limit: 2, next_cursor: expect.any(String) });
      const page2 = (
        await admin.agent
          .get(
            `/portal/api/webhook/deliveries?limit=2&cursor=${encodeURIComponent(page1.pagination.next_cursor)}`,
          )
          .expect(200)
      ).body;
      expect(page2).toEqual({
        data: [expect.objectContaining({ id: ids[0], status: 'delivered' })],
        pagination: { limit: 2, next_cursor: null },
      });
      expect(
        (await admin.agent.get('/portal/api/webhook/deliveries?status=failed').expect(200)).body
          .data,
      ).toEqual([]);
      expect(
        (await admin.agent.get('/portal/api/webhook/deliveries?status=delivered').expect(200)).body
          .data,
      ).toHaveLength(3);
      expect(
        (await admin.agent.get('/portal/api/webhook/deliveries?status=nope').expect(400)).body
          .error,
      ).toBe('validation_failed');
      expect(
        (await admin.agent.get('/portal/api/webhook/deliveries?cursor=forged.cursor').expect(400))
          .body.error,
      ).toBe('validation_failed');

      const other = await setUp();
      await other.admin.agent.get(`/portal/api/webhook/deliveries/${ids[0]}`).expect(404);
      expect(
        (await other.admin.agent.get('/portal/api/webhook/deliveries').expect(200)).body.data,
      ).toEqual([]);
      await other.admin.agent
        .post(`/portal/api/webhook/deliveries/${ids[0]}/redeliver`)
        .set('X-CSRF-Token', other.admin.csrf)
        .expect(404);
      await admin.agent.get('/portal/api/webhook/deliveries/not-a-uuid').expect(400);
    });

    it('a pending delivery cannot be redelivered (409 delivery_in_progress)', async () => {
      const { world, admin } = await setUp({ url: await deadUrl() });
      const { id } = await insertDelivery(world);
      const res = await admin.agent
        .post(`/portal/api/webhook/deliveries/${id}/redeliver`)
        .set('X-CSRF-Token', admin.csrf)
        .expect(409);
      expect(res.body.error).toBe('delivery_in_progress');
      await db.query(
        `UPDATE webhook_delivery SET status = 'failed', next_attempt_at = NULL WHERE id = $1`,
        [id],
      ); // end its series
    });
  });

  describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE_URLS off)', () => {
    let strictApi: TestApi;
    let strictWorker: INestApplicationContext;
    let world: World;
    let admin: Portal;

    beforeAll(async () => {
      // Only the strict worker may see this describe's deliveries (both share the database).
      await worker.close();
      const saved = { ...process.env };
      Object.assign(process.env, {
        WEBHOOK_ALLOW_PRIVATE_URLS: 'false',
        QUEUE_PREFIX: `e2e-webhooks-strict-${process.pid}`,
      });
      try {
        strictApi = await startApi();
        strictWorker = await startWorker();
      } finally {
        process.env.WEBHOOK_ALLOW_PRIVATE_URLS = saved.WEBHOOK_ALLOW_PRIVATE_URLS;
        process.env.QUEUE_PREFIX = saved.QUEUE_PREFIX;
      }
      // a stub DNS: one name resolves to a private address, one to a public one
      const resolver = async (host: string) => {
        if (host === 'internal.bank.test') return [{ address: '10.20.30.40', family: 4 }];
        if (host === 'rebind.bank.test') return [{ address: '127.0.0.1', family: 4 }];
        if (host === 'hooks.bank.test') return [{ address: '93.184.216.34', family: 4 }];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      };
      strictApi.app.get(WebhookSettingsService).resolver = resolver;
      strictWorker.get(WebhookDeliveryService).useResolver(resolver);
      world = await createWorld(strictApi);
      admin = await portalLogin(strictApi, world.admin);
    });
    afterAll(async () => {
      await strictWorker?.close();
      const config = strictApi.app.get(AppConfig);
      const q = openQueue(config.redis, config.queuePrefix, QUEUES.webhooks);
      await q.obliterate({ force: true }).catch(() => undefined);
      await closeQueue(q);
      await strictApi?.close();
      worker = await startWorker();
    });

    it.each([
      'https://127.0.0.1/hooks',
      'https://10.0.0.1/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://100.64.0.1/hooks',
      'https://localhost/hooks',
      'https://internal.bank.test/hooks',
      'http://hooks.bank.test/hooks',
      'https://user:pw@hooks.bank.test/hooks',
    ])('refuses %s at save time (400 validation_failed)', async (url) => {
      const res = await admin.agent
        .put('/portal/api/webhook')
        .set('X-CSRF-Token', admin.csrf)
        .send({ url })
        .expect(400);
      expect(res.body).toMatchObject({
        error: 'validation_failed',
        details: [{ field: 'url', message: expect.any(String) }],
      });
    });

    it('accepts an https URL whose name resolves to a public address', async () => {
      const res = await admin.agent
        .put('/portal/api/webhook')
        .set('X-CSRF-Token', admin.csrf)
        .send({ url: 'https://hooks.bank.test/offers?x=1' })
        .expect(200);
      expect(res.body.url).toBe('https://hooks.bank.test/offers?x=1');
    });

    it('checks again at connect time: a name that now resolves to loopback is never contacted (blocked_address)', async () => {
      await admin.agent
        .post('/portal/api/webhook/secret')
        .set('X-CSRF-Token', admin.csrf)
        .expect(201);
      const { port } = new URL(receiver.url);
      // as if DNS had changed after the URL was saved (rebinding), or the row was written around the API
      await db.query(`UPDATE institution SET webhook_url = $2 WHERE id = $1`, [
        world.institution.id,
        `https://rebind.bank.test:${port}/hooks`,
      ]);
      const before = receiver.received.length;
      const strictDb = strictApi.app.get(DataSource);
      const { id } = await (async () => {
        const d = await insertDelivery(world, { enqueue: false });
        await strictApi.app
          .get(WebhookOutbox)
          .enqueueSteps([{ id: d.id, series: 0, attempt: 1, nextAttemptAt: null }]);
        return d;
      })();
      const attempt = await eventually(
        async () =>
          (
            await strictDb.query(
              `SELECT * FROM webhook_attempt WHERE delivery_id = $1 AND attempt_number = 1`,
              [id],
            )
          )[0],
        'the first attempt',
      );
      expect(attempt).toMatchObject({ error_class: 'blocked_address', http_status: null });
      expect(attempt.error_message).toContain('127.0.0.1');
      expect(receiver.received.length).toBe(before);
      await strictDb.query(
        `UPDATE webhook_delivery SET status = 'failed', next_attempt_at = NULL WHERE id = $1`,
        [id],
      ); // stop the series
    });
  });
});
