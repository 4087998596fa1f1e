// Own queues (no other suite's worker takes these jobs), a fast matching relay, read by every process.
Object.assign(process.env, {
  QUEUE_PREFIX: `e2e-multi-${process.pid}`,
  MATCH_RELAY_GRACE_MS: '1000',
  MATCH_RELAY_INTERVAL_MS: '300',
});

import { ChildProcess, spawn } from 'child_process';
import { existsSync } from 'fs';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  closeQueue,
  KEY_REMINDER_SCHEDULER_ID,
  openQueue,
  QUEUES,
  SETTLEMENT_SCHEDULER_ID,
} from '@app/queue';
import {
  createWorld,
  eventually,
  portalLogin,
  TcpProxy,
  startApi,
  TestApi,
  uniq,
  WebhookReceiver,
  World,
} from '@app/testing';

const root = join(__dirname, '../../..');
const bundle = (app: 'api' | 'worker') => join(root, `dist/apps/${app}/main.js`);

/**
 * Two api processes and two worker processes (the built bundles) against one database and one
 * Redis, as production scales out: the duplicate-reference, budget and goal-offer races through
 * both give exact counts; a worker killed with SIGKILL mid-backlog and a Redis outage during ingestion lose
 * nothing and double nothing (every transaction processed once, one redemption per qualifying
 * purchase, every webhook delivery received — duplicates only as the documented guarantee allows).
 */
const describeBuilt =
  existsSync(bundle('api')) && existsSync(bundle('worker')) ? describe : describe.skip;

describeBuilt('two api and two worker processes on one database and Redis', () => {
  const proxy = new TcpProxy(new URL(process.env.REDIS_URL!));
  const children: ChildProcess[] = [];
  let apis: string[] = [];
  let workers: ChildProcess[] = [];
  let setup: TestApi;
  let db: DataSource;
  let receiver: WebhookReceiver;

  async function startProcess(app: 'api' | 'worker', port?: number): Promise<ChildProcess> {
    const child = spawn(process.execPath, [bundle(app)], {
      cwd: root,
      env: {
        ...process.env,
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        PORT: String(port ?? 0),
        WORKER_HEALTH_PORT: '0',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    children.push(child);
    if (app === 'api') {
      const base = `http://127.0.0.1:${port}`;
      await eventually(
        () =>
          fetch(`${base}/health`).then(
            (r) => r.ok,
            () => false,
          ),
        `api on ${port} (${err})`,
        // A built api starts in ~2 s on a quiet machine; 40 s was seen at load average 26.
        90_000,
        200,
      );
    }
    return child;
  }

  beforeAll(async () => {
    await proxy.start();
    process.env.REDIS_URL = `redis://127.0.0.1:${proxy.port}`;
    setup = await startApi();
    db = setup.app.get(DataSource);
    receiver = await new WebhookReceiver().start();
    const base = 3900 + Math.floor(Math.random() * 80);
    apis = [`http://127.0.0.1:${base}`, `http://127.0.0.1:${base + 1}`];
    await Promise.all([startProcess('api', base), startProcess('api', base + 1)]);
    workers = [await startProcess('worker'), await startProcess('worker')];
  }, 180_000);

  afterAll(async () => {
    // A process killed by a signal (the fault test's worker) has exited with a null exitCode:
    // only those still running are stopped and waited for, with SIGKILL after 20 s.
    const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
    await Promise.all(
      running.map(
        (c) =>
          new Promise((r) => {
            c.once('exit', r);
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 20_000).unref();
          }),
      ),
    );
    await receiver?.stop();
    await setup?.close();
    await proxy.stop();
  }, 90_000);

  const post = (i: number, path: string, auth: string, body: unknown) =>
    fetch(`${apis[i % 2]}${path}`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const tx = (w: World, overrides: Record<string, unknown> = {}) => ({
    cardholder_token: `chk_${uniq()}`,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: w.merchants[0].identifiers[0].value,
    amount: 25,
    transaction_ref: uniq('ref-'),
    transacted_at: new Date().toISOString(),
    ...overrides,
  });
  async function enrolled(w: World, n: number): Promise<string[]> {
    const tokens = Array.from({ length: n }, () => `chk_${uniq()}`);
    for (let i = 0; i < n; i += 20)
      await Promise.all(
        tokens.slice(i, i + 20).map(async (t, j) => {
          const r = await post(i + j, `/api/v1/offers/${w.offers[0].id}/add`, w.auth, {
            cardholder_token: t,
          });
          if (r.status !== 201) throw new Error(`add: ${r.status}`);
        }),
      );
    return tokens;
  }
  const processed = (w: World, n: number, timeoutMs = 90_000) =>
    eventually(
      async () => {
        const [r] = await db.query(
          `SELECT count(*) FILTER (WHERE status <> 'received')::int AS done, count(*)::int AS total
             FROM transaction WHERE institution_id = $1`,
          [w.institution.id],
        );
        return r.done === n && r.total === n ? r : null;
      },
      `${n} transactions processed`,
      timeoutMs,
      200,
    );
  const redemptions = async (w: World) =>
    (
      await db.query(`SELECT count(*)::int AS n FROM redemption WHERE institution_id = $1`, [
        w.institution.id,
      ])
    )[0].n as number;

  it('duplicate reference: 40 concurrent posts through both apis store one row; one 202, 39 × 200 with its id', async () => {
    const w = await createWorld(setup, { merchants: [{}], offers: [{}] });
    const body = tx(w);
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const r = await post(i, '/api/v1/transactions', w.auth, body);
        return { status: r.status, body: (await r.json()) as { id: string } };
      }),
    );
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(39);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
      [w.institution.id, body.transaction_ref],
    );
    expect(n).toBe(1);
  });

  it('scheduled work: both workers keep one settlement and one reminder scheduler, so a tick makes one job in total', async () => {
    const config = setup.app.get(AppConfig);
    for (const [name, id] of [
      [QUEUES.settlement, SETTLEMENT_SCHEDULER_ID],
      [QUEUES.reminders, KEY_REMINDER_SCHEDULER_ID],
    ] as const) {
      const q = openQueue(config.redis, config.queuePrefix, name);
      try {
        // Each worker upserts its schedulers at start: wait until both have.
        const keys = await eventually(async () => {
          const all = await q.getJobSchedulers();
          return all.length ? all.map((s) => s.key) : null;
        }, `${name} scheduler`);
        expect(keys).toEqual([id]);
      } finally {
        await closeQueue(q);
      }
    }
  });

  it('budget race: 30 qualifying purchases through both apis and both workers, budget for 10: exactly 10 redemptions', async () => {
    const w = await createWorld(setup, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, budget_total: 50 }],
    });
    const tokens = await enrolled(w, 30);
    const statuses = await Promise.all(
      tokens.map(
        async (t, i) =>
          (await post(i, '/api/v1/transactions', w.auth, tx(w, { cardholder_token: t }))).status,
      ),
    );
    expect(statuses).toEqual(tokens.map(() => 202));
    await processed(w, 30);
    expect(await redemptions(w)).toBe(10);
    const [offer] = await db.query(
      `SELECT b.budget_used, o.budget_total FROM offer o JOIN offer_budget b ON b.offer_id = o.id WHERE o.id = $1`,
      [w.offers[0].id],
    );
    expect(Number(offer.budget_used)).toBe(Number(offer.budget_total));
  });

  it('goal race: 30 purchases of one cardholder through both apis and both workers, 10-purchase goal, 3 rounds at most: exactly 3 rewards, every purchase counted once', async () => {
    const w = await createWorld(setup, {
      merchants: [{}],
      offers: [
        {
          min_spend: 20,
          cashback_amount: 5,
          max_redemptions_per_cardholder: 3,
          goal: { type: 'purchase_count', target: 10 },
        },
      ],
    });
    const [token] = await enrolled(w, 1);
    const t0 = Date.now() + 1_000;
    const statuses = await Promise.all(
      Array.from(
        { length: 30 },
        async (_, i) =>
          (
            await post(
              i,
              '/api/v1/transactions',
              w.auth,
              tx(w, { cardholder_token: token, transacted_at: new Date(t0 + i).toISOString() }),
            )
          ).status,
      ),
    );
    expect(statuses).toEqual(statuses.map(() => 202));
    await processed(w, 30);
    expect(await redemptions(w)).toBe(3);
    const rounds = await db.query(
      `SELECT c.round, count(*)::int AS n FROM goal_contribution c
         JOIN cardholder_offer co ON co.id = c.cardholder_offer_id
        WHERE co.offer_id = $1 GROUP BY c.round ORDER BY c.round`,
      [w.offers[0].id],
    );
    expect(rounds).toEqual([
      { round: 1, n: 10 },
      { round: 2, n: 10 },
      { round: 3, n: 10 },
    ]);
    const [e] = await db.query(
      `SELECT status, redemption_count, goal_round FROM cardholder_offer WHERE offer_id = $1`,
      [w.offers[0].id],
    );
    expect(e).toEqual({ status: 'redeemed', redemption_count: 3, goal_round: 4 });
  });

  it('a worker killed (SIGKILL) mid-backlog and a Redis outage during ingestion: nothing lost, nothing doubled', async () => {
    const w = await createWorld(setup, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    const admin = await portalLogin(setup, w.admin);
    await admin.agent
      .put('/portal/api/webhook')
      .set('X-CSRF-Token', admin.csrf)
      .send({ url: receiver.url })
      .expect(200);
    await admin.agent
      .post('/portal/api/webhook/secret')
      .set('X-CSRF-Token', admin.csrf)
      .send({})
      .expect(201);
    const N = 200;
    const tokens = await enrolled(w, N + 40);

    // 1. A backlog of 10 batches; the first worker is killed once matching is under way.
    const first = tokens.slice(0, N);
    const batches = await Promise.all(
      Array.from({ length: 10 }, (_, b) =>
        post(b, '/api/v1/transactions/batch', w.auth, {
          transactions: first.slice(b * 20, b * 20 + 20).map((t) => tx(w, { cardholder_token: t })),
        }).then((r) => r.json() as Promise<{ accepted: number }>),
      ),
    );
    expect(batches.map((b) => b.accepted)).toEqual(batches.map(() => 20));
    await eventually(async () => (await redemptions(w)) > 0, 'matching to start');
    workers[0].kill('SIGKILL');
    await new Promise((r) => workers[0].once('exit', r));
    workers[0] = await startProcess('worker');

    // 2. Redis lost while 40 more purchases come in: every one is committed and answered 202.
    await proxy.stop();
    const during = await Promise.all(
      tokens
        .slice(N)
        .map(
          async (t, i) =>
            (await post(i, '/api/v1/transactions', w.auth, tx(w, { cardholder_token: t }))).status,
        ),
    );
    expect(during).toEqual(tokens.slice(N).map(() => 202));
    await proxy.start();

    // Every purchase processed once, one redemption each, every delivery received and delivered.
    const total = N + 40;
    await processed(w, total, 180_000);
    expect(await redemptions(w)).toBe(total);
    const [{ doubled }] = await db.query(
      `SELECT count(*)::int AS doubled FROM (SELECT transaction_id FROM redemption WHERE institution_id = $1
          GROUP BY transaction_id HAVING count(*) > 1) d`,
      [w.institution.id],
    );
    expect(doubled).toBe(0);
    await eventually(
      async () => {
        const [r] = await db.query(
          `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*)::int AS all
             FROM webhook_delivery WHERE institution_id = $1`,
          [w.institution.id],
        );
        return r.delivered === total && r.all === total ? r : null;
      },
      'every delivery delivered',
      180_000,
      250,
    );
    const deliveryIds = new Set(
      (
        await db.query(`SELECT id FROM webhook_delivery WHERE institution_id = $1`, [
          w.institution.id,
        ])
      ).map((r: { id: string }) => r.id),
    );
    const ids = receiver.received
      .map((r) => String(r.headers['x-service-delivery-id']))
      .filter((id) => deliveryIds.has(id));
    const distinct = new Set(ids).size;
    // The guarantee: a delivery whose 2xx reached no surviving worker (only the killed worker's
    // attempts in flight) may be received once more, with the same delivery id; nothing else.
    process.stdout.write(
      `multi-process fault run: ${total} transactions, ${await redemptions(w)} redemptions, ` +
        `${ids.length} webhook requests received for ${distinct} deliveries\n`,
    );
    expect(distinct).toBe(total);
    expect(ids.length - distinct).toBeLessThanOrEqual(100);
  }, 400_000);
});
