// Own BullMQ prefix, a fast relay, and a URL paused after ~1.7 s of nothing but failures.
Object.assign(process.env, {
  QUEUE_PREFIX: `e2e-webhook-endpoint-${process.pid}`,
  WEBHOOK_RELAY_INTERVAL_MS: '200',
  WEBHOOK_STUCK_AFTER_MS: '500',
  WEBHOOK_DISABLE_AFTER_DAYS: '0.00002',
});

import { Logger, type INestApplicationContext } from '@nestjs/common';
import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'fs';
import { createServer as createHttpsServer, Server as HttpsServer } from 'https';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import type { TLSSocket } from 'tls';
import { randomUUID } from 'crypto';
import { AppConfig } from '@app/config';
import { WEBHOOK_MESSAGES, WebhookDeliveryService, WebhookOutbox } from '@app/core';
import { DataSource } from 'typeorm';
import { closeQueue, jobIds, openQueue, QUEUES } from '@app/queue';
import {
  configureWebhook,
  createWorld,
  eventually,
  insertRedemptionDelivery,
  obliterateQueues,
  portalLogin,
  ReceivedRequest,
  smtpSink,
  startApi,
  startWorker,
  TestApi,
  WebhookReceiver,
  World,
} from '@app/testing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhook endpoint options: custom headers, rate cap, pause and resume', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let db: DataSource;
  let receiver: WebhookReceiver;
  let sink: Awaited<ReturnType<typeof smtpSink>>;

  beforeAll(async () => {
    // The pause alert is also e-mailed where SMTP is set.
    sink = await smtpSink();
    process.env.SMTP_URL = `smtp://127.0.0.1:${sink.port}`;
    process.env.SMTP_FROM = 'offers@service.test';
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
    sink?.server.close();
    delete process.env.SMTP_URL;
    delete process.env.SMTP_FROM;
  });

  async function setUp() {
    const world = await createWorld(api);
    const admin = await portalLogin(api, world.admin);
    await configureWebhook(admin, receiver.url);
    return { world, admin };
  }
  type Portal = Awaited<ReturnType<typeof setUp>>['admin'];
  const mine = (w: World) => (r: ReceivedRequest) =>
    JSON.parse(r.rawBody.toString() || '{}').institution_id === w.institution.id;
  const forDelivery = (id: string) =>
    receiver.received.filter((r) => r.headers['x-service-delivery-id'] === id);
  const detail = (p: Portal, id: string) =>
    p.agent
      .get(`/portal/api/webhook/deliveries/${id}`)
      .expect(200)
      .then((r) => r.body);
  const settled = (p: Portal, id: string, timeoutMs = 15_000) =>
    eventually(
      async () => {
        const d = await detail(p, id);
        return d.status !== 'pending' ? d : null;
      },
      `delivery ${id} settled`,
      timeoutMs,
    );

  it('custom headers arrive with every attempt and their values never appear in logs, the log or the activity', async () => {
    const { world, admin } = await setUp();
    const value = `gw-secret-${Date.now()}-value`;
    const logged: string[] = [];
    const spies = (['log', 'warn', 'error', 'debug', 'verbose', 'fatal'] as const).map((level) =>
      jest.spyOn(Logger.prototype, level).mockImplementation(function (...args: unknown[]) {
        logged.push(JSON.stringify(args));
      }),
    );
    try {
      const put = (headers: unknown) =>
        admin.agent
          .put('/portal/api/webhook/headers')
          .set('X-CSRF-Token', admin.csrf)
          .send({ headers });
      for (const bad of [
        Array.from({ length: 6 }, (_, i) => ({ name: `X-H${i}`, value: 'v' })),
        [{ name: 'X-Service-Signature', value: 'sha256=forged' }],
        [{ name: 'X-Ok', value: 'a\r\nX-Injected: 1' }],
        [{ name: 'X-Ok', value: 'v', extra: 1 }],
      ])
        expect((await put(bad).expect(400)).body.error).toBe('validation_failed');
      const member = await portalLogin(api, world.member);
      await member.agent
        .put('/portal/api/webhook/headers')
        .set('X-CSRF-Token', member.csrf)
        .send({ headers: [] })
        .expect(403);
      const saved = await put([
        { name: 'X-Api-Key', value },
        { name: 'X-Route', value: 'offers' },
      ]).expect(200);
      expect(saved.body.custom_headers).toEqual(['X-Api-Key', 'X-Route']);
      expect(JSON.stringify(saved.body)).not.toContain(value);

      // a failing first attempt, then a success: both carry the headers
      let n = 0;
      receiver.respondWith((r, _i, res) => {
        if (mine(world)(r) && ++n === 1) return void res.writeHead(500).end('boom');
        res.writeHead(200).end('ok');
      });
      const { id } = await insertRedemptionDelivery(db, world.institution.id);
      const reqs = await eventually(
        async () => (forDelivery(id).length >= 2 ? forDelivery(id) : null),
        'two attempts',
      );
      for (const r of reqs) {
        expect(r.headers['x-api-key']).toBe(value);
        expect(r.headers['x-route']).toBe('offers');
      }
      const d = await settled(admin, id);
      expect(d.attempts).toHaveLength(2);
      for (const a of d.attempts) expect(a.request_headers['X-Api-Key']).toBe('[hidden]');
      expect(JSON.stringify(d)).not.toContain(value);
      const stored = await db.query(
        `SELECT webhook_headers_encrypted AS h FROM institution WHERE id = $1`,
        [world.institution.id],
      );
      expect(stored[0].h).not.toContain(value);
      const attempts = await db.query(
        `SELECT request_headers::text AS h, error_message FROM webhook_attempt WHERE delivery_id = $1`,
        [id],
      );
      expect(JSON.stringify(attempts)).not.toContain(value);
      const activity = await db.query(
        `SELECT type, details FROM security_event WHERE institution_id = $1 AND type = 'webhook.headers_changed'`,
        [world.institution.id],
      );
      expect(activity).toEqual([
        { type: 'webhook.headers_changed', details: { names: ['X-Api-Key', 'X-Route'] } },
      ]);
      expect(logged.length).toBeGreaterThan(0); // the spies did see the service's log lines
      expect(logged.join('\n')).not.toContain(value);
    } finally {
      for (const s of spies) s.mockRestore();
      receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
    }
  });

  it('a cap of 2 per second spaces six deliveries half a second apart, each sent once', async () => {
    const { world, admin } = await setUp();
    const cap = await admin.agent
      .put('/portal/api/webhook/rate-limit')
      .set('X-CSRF-Token', admin.csrf)
      .send({ max_per_second: 2 })
      .expect(200);
    expect(cap.body.max_per_second).toBe(2);
    for (const bad of [0, 1001, 1.5, '2'])
      await admin.agent
        .put('/portal/api/webhook/rate-limit')
        .set('X-CSRF-Token', admin.csrf)
        .send({ max_per_second: bad })
        .expect(400);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await insertRedemptionDelivery(db, world.institution.id)).id);
    for (const id of ids) expect(await settled(admin, id)).toMatchObject({ status: 'delivered' });
    const reqs = receiver.received.filter(mine(world));
    expect(reqs.map((r) => r.headers['x-service-delivery-id']).sort()).toEqual([...ids].sort());
    const times = reqs.map((r) => r.receivedAt).sort((a, b) => a - b);
    // evenly spaced: one every 500 ms (a little less for network jitter), never a burst
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThan(400);
    expect(times[5] - times[0]).toBeGreaterThanOrEqual(2_300);
    await admin.agent
      .put('/portal/api/webhook/rate-limit')
      .set('X-CSRF-Token', admin.csrf)
      .send({ max_per_second: null })
      .expect(200);
  });

  it('a URL failing every attempt past the threshold is paused with an inbox alert; deliveries wait; resume sends them in order', async () => {
    const { world, admin } = await setUp();
    const down = { on: true };
    receiver.respondWith((r, _n, res) => {
      if (mine(world)(r) && down.on) return void res.writeHead(500).end('down');
      res.writeHead(200).end('ok');
    });
    const first = await insertRedemptionDelivery(db, world.institution.id);
    const paused = await eventually(
      async () => {
        const s = (await admin.agent.get('/portal/api/webhook').expect(200)).body;
        return s.paused_at ? s : null;
      },
      'the pause',
      20_000,
    );
    expect(paused.failing_since).toEqual(expect.any(String));
    expect(Date.parse(paused.paused_at) - Date.parse(paused.failing_since)).toBeGreaterThanOrEqual(
      1_700,
    );
    const inbox = await db.query(
      `SELECT kind, body FROM inbox_message WHERE institution_id = $1 AND kind = 'webhook.paused'`,
      [world.institution.id],
    );
    // The text is the message module's, with the streak's start filled in (UTC, to the minute).
    const since = paused.failing_since.slice(0, 16).replace('T', ' ');
    expect(inbox).toEqual([
      { kind: 'webhook.paused', body: WEBHOOK_MESSAGES.paused.body.replace('{since}', since) },
    ]);
    // ... and e-mailed once to the institution's portal users
    const mails = await eventually(
      async () => {
        const m = sink.mails.filter((x) => x.to.includes(world.admin.email));
        return m.length ? m : null;
      },
      'the pause e-mail',
      10_000,
    );
    expect(mails).toHaveLength(1);
    expect(mails[0].data).toContain('Subject: Webhook deliveries are paused');
    expect(mails[0].data).toContain('resume');
    // while paused nothing is sent: the first delivery stops where it was, new ones wait
    const later = [
      (await insertRedemptionDelivery(db, world.institution.id)).id,
      (await insertRedemptionDelivery(db, world.institution.id)).id,
    ];
    const attemptsSoFar = (await detail(admin, first.id)).attempt_count;
    const sentSoFar = receiver.received.filter(mine(world)).length;
    await sleep(2_000);
    expect((await detail(admin, first.id)).attempt_count).toBe(attemptsSoFar);
    expect(receiver.received.filter(mine(world)).length).toBe(sentSoFar);
    for (const id of later)
      expect(await detail(admin, id)).toMatchObject({ status: 'pending', attempt_count: 0 });

    down.on = false;
    const resumed = await admin.agent
      .post('/portal/api/webhook/resume')
      .set('X-CSRF-Token', admin.csrf)
      .expect(200);
    expect(resumed.body).toMatchObject({ resumed: 3, paused_at: null, failing_since: null });
    for (const id of [first.id, ...later])
      expect(await settled(admin, id)).toMatchObject({ status: 'delivered' });
    const after = receiver.received.filter(mine(world)).slice(sentSoFar);
    expect(after.map((r) => r.headers['x-service-delivery-id'])).toEqual([first.id, ...later]);
    expect(
      (
        await admin.agent
          .post('/portal/api/webhook/resume')
          .set('X-CSRF-Token', admin.csrf)
          .expect(409)
      ).body.error,
    ).toBe('webhook_not_paused');
    receiver.respondWith((_r, _n, res) => void res.writeHead(200).end('ok'));
  });

  /** A test CA, a server certificate for 127.0.0.1 and client certificates, made with openssl. */
  function makeCertificates() {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-mtls-'));
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '2',
      '-subj',
      '/CN=Test CA',
    );
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    const leaf = (name: string, subject: string, ext?: string) => {
      ssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.csr`,
        '-subj',
        subject,
      );
      ssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '2',
        ...(ext ? ['-extfile', ext] : []),
      );
    };
    leaf('server', '/CN=127.0.0.1', 'san.ext');
    leaf('client', '/CN=offers-webhooks/O=Demo Bank');
    leaf('other', '/CN=someone-else');
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    return {
      ca: read('ca.crt'),
      server: { cert: read('server.crt'), key: read('server.key') },
      client: { cert: read('client.crt'), key: read('client.key') },
      otherKey: read('other.key'),
    };
  }

  it('resuming moves a retry job scheduled before the pause to the resumed time (adding it again would be ignored)', async () => {
    const outbox = api.app.get(WebhookOutbox);
    // A step whose retry was queued for an hour from now (its delivery does not exist: the
    // worker, if it takes the job, finds nothing to do).
    const step = { id: randomUUID(), series: 0, attempt: 4 };
    await outbox.add([{ ...step, nextAttemptAt: new Date(Date.now() + 3_600_000) }]);
    const due = { ...step, nextAttemptAt: new Date() };
    await outbox.reschedule([due]);
    await outbox.enqueueSteps([due], undefined, 'none');
    const config = api.app.get(AppConfig);
    const q = openQueue(config.redis, config.queuePrefix, QUEUES.webhooks);
    const job = await q.getJob(jobIds.webhook(step.id, step.series, step.attempt));
    // Gone (the worker took it) or no longer held back for the hour.
    const heldBack = job ? (await job.isDelayed()) && job.delay > 60_000 : false;
    await closeQueue(q);
    expect(heldBack).toBe(false);
  });

  it('mutual TLS: a client certificate checked at upload, stored encrypted with its expiry shown, presented to a receiver that requires one', async () => {
    const certs = makeCertificates();
    worker.get(WebhookDeliveryService).trustCa(certs.ca);
    const seen: { authorized: boolean; cn: string; id: string }[] = [];
    const server: HttpsServer = createHttpsServer(
      { ...certs.server, ca: certs.ca, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        seen.push({
          authorized: socket.authorized,
          cn: String(socket.getPeerCertificate().subject?.CN),
          id: String(req.headers['x-service-delivery-id']),
        });
        req.resume();
        req.on('end', () => res.writeHead(200).end('ok'));
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { world, admin } = await setUp();
      await admin.agent
        .put('/portal/api/webhook')
        .set('X-CSRF-Token', admin.csrf)
        .send({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` })
        .expect(200);
      const upload = (certificate: string, private_key: string) =>
        admin.agent
          .put('/portal/api/webhook/client-certificate')
          .set('X-CSRF-Token', admin.csrf)
          .send({ certificate, private_key });
      // refused at upload: not PEM, a key that is not the certificate's
      for (const [cert, key, field] of [
        ['not a certificate', certs.client.key, 'certificate'],
        [certs.client.cert, 'not a key', 'private_key'],
        [certs.client.cert, certs.otherKey, 'private_key'],
      ]) {
        const res = await upload(cert, key).expect(400);
        expect(res.body).toMatchObject({ error: 'validation_failed', details: [{ field }] });
      }

      // without a certificate the receiver refuses the connection: the attempt fails
      const { id } = await insertRedemptionDelivery(db, world.institution.id);
      await eventually(async () => (await detail(admin, id)).attempt_count >= 1, 'a first attempt');
      expect(seen).toEqual([]);
      const saved = await upload(certs.client.cert, certs.client.key).expect(200);
      expect(saved.body.client_certificate.subject).toContain('CN=offers-webhooks');
      const days = (Date.parse(saved.body.client_certificate.expires_at) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(1.9);
      expect(days).toBeLessThanOrEqual(2);
      const d = await settled(admin, id, 30_000);
      expect(d.status).toBe('delivered');
      expect(d.attempts[0]).toMatchObject({ http_status: null });
      expect(d.attempts[d.attempts.length - 1]).toMatchObject({ http_status: 200 });
      expect(seen).toEqual([{ authorized: true, cn: 'offers-webhooks', id }]);
      const stored = (
        await db.query(
          `SELECT webhook_client_cert_encrypted AS c, webhook_client_key_encrypted AS k FROM institution WHERE id = $1`,
          [world.institution.id],
        )
      )[0];
      expect(stored.c).not.toContain('BEGIN CERTIFICATE');
      expect(stored.k).not.toContain('PRIVATE KEY');
      const removed = await admin.agent
        .delete('/portal/api/webhook/client-certificate')
        .set('X-CSRF-Token', admin.csrf)
        .expect(200);
      expect(removed.body.client_certificate).toBeNull();
      await admin.agent
        .put('/portal/api/webhook')
        .set('X-CSRF-Token', admin.csrf)
        .send({ url: null })
        .expect(200);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
