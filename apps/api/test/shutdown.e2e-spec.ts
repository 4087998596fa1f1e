// Own queues: no other suite's worker takes this file's webhook job; a fast webhook relay.
Object.assign(process.env, {
  QUEUE_PREFIX: `e2e-shutdown-${process.pid}`,
  WEBHOOK_RELAY_INTERVAL_MS: '200',
});

import { ChildProcess, spawn } from 'child_process';
import { existsSync } from 'fs';
import { connect } from 'net';
import { join } from 'path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  configureWebhook,
  createWorld,
  eventually,
  insertRedemptionDelivery,
  obliterateQueues,
  portalLogin,
  startApi,
  TEST_DATABASE_URL,
  TestApi,
  WebhookReceiver,
} from '@app/testing';
import { QUEUES } from '@app/queue';

const root = join(__dirname, '../../..');
const bundle = (app: 'api' | 'worker' | 'cli') => join(root, `dist/apps/${app}/main.js`);
const describeBuilt =
  existsSync(bundle('worker')) && existsSync(bundle('cli')) ? describe : describe.skip;

function start(app: 'api' | 'worker' | 'cli', env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [bundle(app), ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', WORKER_HEALTH_PORT: '0', ...env },
  });
  const out = { text: '' };
  child.stdout.on('data', (d) => (out.text += d));
  child.stderr.on('data', (d) => (out.text += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, out, exited };
}

/**
 * What a Kubernetes deploy relies on (deploy/kubernetes, docs/deployment.md): the new version's
 * pods wait for the migration Job (`migrate --wait`), and SIGTERM loses no work: the api answers
 * the request in flight, the worker finishes the job it runs.
 */
describeBuilt('deploy: schema wait and graceful shutdown', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

  it('migrate --wait returns only once the migration has run on its database', async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `${url.pathname}_wait`;
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const name = url.pathname.slice(1);
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${name}"`);
      const waiter = start('cli', { DATABASE_URL: url.toString() }, ['migrate', '--wait']);
      children.push(waiter.child);
      await eventually(
        async () => /waiting for the migration Job/.test(waiter.out.text),
        'waiting',
        30_000,
        100,
      );
      expect(waiter.child.exitCode).toBeNull();
      const job = start('cli', { DATABASE_URL: url.toString() }, ['migrate']);
      expect((await job.exited).code).toBe(0);
      expect((await waiter.exited).code).toBe(0);
      expect(waiter.out.text).toMatch(/database schema is up to date/);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
  });

  it('api: SIGTERM closes the listener and still answers the request in flight', async () => {
    const port = 3900 + Math.floor(Math.random() * 90);
    const api = start('api', { PORT: String(port) });
    children.push(api.child);
    const base = `http://127.0.0.1:${port}`;
    const up = () =>
      fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      );
    await eventually(up, `api up (${api.out.text})`, 30_000, 200);

    // A request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ transaction_ref: 'r', amount: 1 });
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /api/v1/transactions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nAuthorization: Bearer pk_unknown\r\n\r\n${body.slice(0, 5)}`,
    );
    // One more request through the event loop: the partial one, sent before, has been read by now.
    expect(await up()).toBe(true);
    api.child.kill('SIGTERM');
    await eventually(async () => !(await up()), 'listener closed after SIGTERM');
    expect(api.child.exitCode).toBeNull(); // still draining the request in flight
    socket.write(body.slice(5)); // not end(): a half-closed request counts as aborted
    await eventually(async () => /^HTTP\/1\.1 401/.test(answer), `answered (${answer})`);
    // The answer closes its connection: the process ends now, not after the keep-alive timeout
    // (65 s, longer than the pod's grace period).
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    await eventually(
      async () => api.child.exitCode !== null || api.child.signalCode,
      'exit',
      5_000,
    );
  });

  describe('worker', () => {
    let api: TestApi;
    let db: DataSource;
    const receiver = new WebhookReceiver();
    beforeAll(async () => {
      await receiver.start();
      api = await startApi();
      db = api.app.get(DataSource);
    });
    afterAll(async () => {
      await receiver.stop();
      await obliterateQueues(api, [QUEUES.webhooks]);
      await api.close();
    });

    it('SIGTERM finishes the webhook attempt it is running, records it, then exits 0', async () => {
      const world = await createWorld(api);
      await configureWebhook(await portalLogin(api, world.admin), receiver.url);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      receiver.respondWith(async (_r, _n, res) => {
        await held;
        res.writeHead(200).end('ok');
      });
      const worker = start('worker', {});
      children.push(worker.child);
      await eventually(
        async () => /worker ready/.test(worker.out.text),
        'worker ready',
        30_000,
        200,
      );
      const delivery = await insertRedemptionDelivery(db, world.institution.id);
      await receiver.waitFor(1);

      worker.child.kill('SIGTERM');
      await eventually(async () => /finishing running jobs/.test(worker.out.text), 'stopping');
      expect(worker.child.exitCode).toBeNull(); // waits for the attempt
      release();
      expect((await worker.exited).code).toBe(0);
      const [row] = await db.query(`SELECT status FROM webhook_delivery WHERE id = $1`, [
        delivery.id,
      ]);
      expect(row.status).toBe('delivered');
      expect(receiver.received).toHaveLength(1);
    });
  });
});
