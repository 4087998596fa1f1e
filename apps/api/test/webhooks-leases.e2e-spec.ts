// Leases are short here (1 s timeout + 1 s grace) so that "a lease ran out" takes two seconds.
// No worker runs in this file: the tests play the worker's jobs themselves, in the order a crash,
// a stall or a stalled-job re-run would produce, through the same service the worker uses.
Object.assign(process.env, {
  QUEUE_PREFIX: `e2e-webhook-leases-${process.pid}`,
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_GRACE_MS: '1000',
});

import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { WebhookDeliveryService } from '@app/core';
import { QUEUES, WebhookJob } from '@app/queue';
import {
  clockPast,
  configureWebhook,
  createWorld,
  eventually,
  insertRedemptionDelivery,
  obliterateQueues,
  portalLogin,
  startApi,
  TestApi,
  WebhookReceiver,
} from '@app/testing';

describe('webhook leases: an acknowledged delivery is never sent again', () => {
  let api: TestApi;
  let db: DataSource;
  let receiver: WebhookReceiver;
  let worker: WebhookDeliveryService;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    worker = api.app.get(WebhookDeliveryService);
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await obliterateQueues(api, [QUEUES.webhooks]);
    await api.close();
    await receiver.stop();
  });

  async function setUp() {
    const world = await createWorld(api);
    const admin = await portalLogin(api, world.admin);
    await configureWebhook(admin, receiver.url);
    const delivery = await insertRedemptionDelivery(db, world.institution.id);
    return { world, admin, id: delivery.id };
  }

  const job = (deliveryId: string, attempt: number, series = 0): WebhookJob => ({
    deliveryId,
    series,
    attempt,
    trigger: series === 0 ? 'automatic' : 'manual',
  });
  const requestsFor = (id: string) =>
    receiver.received.filter((r) => r.headers['x-service-delivery-id'] === id);
  const row = async (id: string) =>
    (
      await db.query(
        `SELECT status, attempt_count, delivered_at, next_attempt_at, lease_token FROM webhook_delivery WHERE id = $1`,
        [id],
      )
    )[0];
  /** Sessions of this database waiting for a lock (the claims blocked behind the test's lock). */
  const lockWaiters = async () =>
    (
      await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      )
    )[0].n as number;
  const attempts = (id: string) =>
    db.query(
      `SELECT attempt_number, http_status, error_class FROM webhook_attempt WHERE delivery_id = $1 ORDER BY attempt_number`,
      [id],
    );

  it('a slow attempt whose lease was taken over: its 2xx still counts and the next attempt sends nothing', async () => {
    const { id } = await setUp();
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    receiver.respondWith(async (r, _n, res) => {
      if (r.headers['x-service-delivery-id'] === id) await answered;
      res.writeHead(200).end('ok');
    });

    // worker A sends attempt 1; the receiver is still working on it ...
    const a = worker.attempt(job(id, 1));
    await eventually(async () => requestsFor(id).length === 1, 'attempt 1 at the receiver');
    // ... while A stalls past its lease (as a frozen process would) and the job is run again
    // elsewhere (BullMQ re-runs a stalled job): that claimant logs attempt 1 as interrupted and
    // schedules attempt 2.
    await db.query(
      `UPDATE webhook_delivery SET lease_until = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    await worker.attempt(job(id, 1));
    // the receiver now acknowledges attempt 1 (A is alive and records the 2xx)
    answer();
    await a;
    // attempt 2's job runs: the delivery was acknowledged, so nothing may be sent
    await worker.attempt(job(id, 2)); // awaited: anything it sent has been received

    expect(requestsFor(id)).toHaveLength(1);
    expect(await row(id)).toMatchObject({
      status: 'delivered',
      delivered_at: expect.any(Date),
      next_attempt_at: null,
    });
    const log = await attempts(id);
    expect(log[0]).toMatchObject({ attempt_number: 1, http_status: 200, error_class: null });
    // Every attempt carries its delivery's tenant and creation time (the coming partition key).
    const [keyed] = await db.query(
      `SELECT count(*)::int AS n FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id
        WHERE a.delivery_id = $1 AND a.institution_id = d.institution_id AND a.delivery_created_at = d.created_at`,
      [id],
    );
    expect(keyed.n).toBe(log.length);
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  it('a claim that waited on a row lock longer than a lease still gets a whole lease: a second claimant waits, one request', async () => {
    const { id } = await setUp();
    receiver.respondWith(async (r, _n, res) => {
      // a receiver that takes 300 ms to answer
      if (r.headers['x-service-delivery-id'] === id) await new Promise((w) => setTimeout(w, 300));
      res.writeHead(200).end('ok');
    });
    const lock = db.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    await lock.query(`SELECT id FROM webhook_delivery WHERE id = $1 FOR UPDATE`, [id]);
    const { webhook } = api.app.get(AppConfig);
    const waitingSince = Date.now();
    const a = worker.attempt(job(id, 1)); // its claim waits for the lock
    await clockPast(waitingSince + webhook.timeoutMs + webhook.leaseGraceMs, 'a whole lease');
    const b = worker.attempt(job(id, 1)); // the same job, run again elsewhere
    await eventually(async () => (await lockWaiters()) >= 2, 'both claims to wait on the row lock');
    await lock.commitTransaction();
    await lock.release();
    const [ra, rb] = await Promise.all([a, b]);
    // one of them holds the step; the other must not take it over while the holder is sending
    expect([ra.kind, rb.kind].sort()).toEqual(['attempted', 'busy']);
    await worker.attempt(job(id, 2)); // awaited: anything it sent has been received
    expect(requestsFor(id)).toHaveLength(1);
    expect(await row(id)).toMatchObject({ status: 'delivered', attempt_count: 1 });
    expect(await attempts(id)).toEqual([
      { attempt_number: 1, http_status: 200, error_class: null },
    ]);
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  it('redeliver race: ten concurrent redeliveries of one delivery make exactly one attempt', async () => {
    const { id, admin } = await setUp();
    await worker.attempt(job(id, 1));
    expect(await row(id)).toMatchObject({ status: 'delivered' });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        admin.agent
          .post(`/portal/api/webhook/deliveries/${id}/redeliver`)
          .set('X-CSRF-Token', admin.csrf),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status === 409))
      expect(r.body.error).toBe('delivery_in_progress');
    // the accepted one's attempt (series 1), run twice as a duplicated job would be
    await Promise.all([worker.attempt(job(id, 1, 1)), worker.attempt(job(id, 1, 1))]);
    expect(requestsFor(id)).toHaveLength(2); // the automatic delivery and one redelivery
    expect(await row(id)).toMatchObject({ status: 'delivered', attempt_count: 2 });
  });
});
