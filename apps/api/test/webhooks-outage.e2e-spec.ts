// The receiver holds its answers until the outage starts, well within the 15 s timeout; a short
// grace keeps the lease (17 s) close to it. A worker that gave up recording would leave the step
// to its job's next run, which takes the lease over once it ends and sends the event again.
Object.assign(process.env, {
  QUEUE_PREFIX: `e2e-webhook-outage-${process.pid}`,
  WEBHOOK_TIMEOUT_MS: '15000',
  WEBHOOK_LEASE_GRACE_MS: '2000',
});

import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { closeQueue, openQueue, QUEUES } from '@app/queue';
import {
  clockPast,
  configureWebhook,
  createWorld,
  eventually,
  insertRedemptionDelivery,
  jobsSettled,
  obliterateQueues,
  portalLogin,
  startApi,
  startWorker,
  TcpProxy,
  TestApi,
  WebhookReceiver,
} from '@app/testing';

describe('a PostgreSQL outage while the receiver answers 2xx', () => {
  const databaseUrl = process.env.DATABASE_URL!; // the test environment's (a pooler's, if set)
  const pg = new TcpProxy(new URL(databaseUrl));
  let api: TestApi;
  let db: DataSource;
  let worker: INestApplicationContext;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    await pg.start();
    api = await startApi();
    db = api.app.get(DataSource);
    receiver = await new WebhookReceiver().start();
    // Only the worker reaches PostgreSQL through the proxy: cutting it is the worker's outage.
    process.env.DATABASE_URL = pg.url();
    try {
      worker = await startWorker();
    } finally {
      process.env.DATABASE_URL = databaseUrl;
    }
  });

  afterAll(async () => {
    await worker?.close();
    await obliterateQueues(api, [QUEUES.webhooks]);
    await api.close();
    await receiver.stop();
    await pg.stop();
  });

  it('every delivery is received exactly once and ends delivered', async () => {
    const world = await createWorld(api);
    await configureWebhook(await portalLogin(api, world.admin), receiver.url);
    // The receiver holds its 2xx answers until the worker's database is gone.
    let cut!: () => void;
    const cutDone = new Promise<void>((r) => (cut = r));
    receiver.respondWith(async (_r, _n, res) => {
      await cutDone;
      res.writeHead(200).end('ok');
    });
    const ids = (
      await Promise.all(
        [1, 2, 3, 4, 5].map(() => insertRedemptionDelivery(db, world.institution.id)),
      )
    ).map((d) => d.id);
    await receiver.waitFor(ids.length, 10_000);

    await pg.stop();
    try {
      const outageEnds = Date.now() + 10_000;
      cut(); // the answers reach a live worker that cannot write them down
      await clockPast(outageEnds, 'the 10 s outage');
    } finally {
      await pg.start();
    }

    const status = async () =>
      (
        await db.query(`SELECT id, status FROM webhook_delivery WHERE id = ANY($1::uuid[])`, [ids])
      ).map((r: { status: string }) => r.status);
    await eventually(
      async () => (await status()).every((s: string) => s === 'delivered'),
      'every delivery delivered',
      30_000,
    );
    // Whatever a job could still send has been sent: no job of these deliveries is left.
    const config = api.app.get(AppConfig);
    const queue = openQueue(config.redis, config.queuePrefix, QUEUES.webhooks);
    try {
      for (const id of ids) await jobsSettled(queue, `wh-${id}-`);
    } finally {
      await closeQueue(queue);
    }

    const received = ids.map(
      (id) => receiver.received.filter((r) => r.headers['x-service-delivery-id'] === id).length,
    );
    expect(received).toEqual(ids.map(() => 1));
    expect(await status()).toEqual(ids.map(() => 'delivered'));
    const attempts = await db.query(
      `SELECT http_status, error_class FROM webhook_attempt WHERE delivery_id = ANY($1::uuid[])`,
      [ids],
    );
    expect(attempts).toEqual(ids.map(() => ({ http_status: 200, error_class: null })));
  });
});
