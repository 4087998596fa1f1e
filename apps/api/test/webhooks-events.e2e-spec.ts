// Own BullMQ prefix; all read at app start.
Object.assign(process.env, {
  QUEUE_PREFIX: `e2e-webhook-events-${process.pid}`,
  WEBHOOK_RELAY_INTERVAL_MS: '200',
});

import type { INestApplicationContext } from '@nestjs/common';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'fs';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { WebhookEventCatalog1763800400100 } from '../../../libs/db/src/migrations/1763800400100-webhook-event-catalog';
import { verifyWebhook } from '@app/domain';
import { closeQueue, openQueue, QUEUES } from '@app/queue';
import {
  createWorld,
  eventually,
  jobsSettled,
  obliterateQueues,
  portalLogin,
  startApi,
  startWorker,
  TestApi,
  uniq,
  WebhookReceiver,
  World,
} from '@app/testing';

const SCHEMA_OF: Record<string, string> = {
  'redemption.completed': 'RedemptionCompletedEventDto',
  'redemption.reversed': 'RedemptionReversedEventDto',
  'redemption.settled': 'RedemptionSettledEventDto',
  'webhook.test': 'WebhookTestEventDto',
};

describe('webhook event catalog', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let db: DataSource;
  let receiver: WebhookReceiver;
  const openapi = JSON.parse(
    readFileSync(join(__dirname, '../../../openapi/openapi.json'), 'utf8'),
  ) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const [name, schema] of Object.entries(openapi.components.schemas))
    ajv.addSchema(schema, `#/components/schemas/${name}`);

  beforeAll(async () => {
    api = await startApi();
    worker = await startWorker();
    db = api.app.get(DataSource);
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await worker?.close();
    await obliterateQueues(api, [QUEUES.webhooks, QUEUES.matching, QUEUES.settlement]);
    await api.close();
    await receiver.stop();
  });

  async function setUp() {
    const world = await createWorld(api, {
      program: { settlement_hold_days: 0 },
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    const admin = await portalLogin(api, world.admin);
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
    ).body.signing_secret as string;
    return { world, admin, secret };
  }

  const bodiesFor = (w: World) =>
    receiver.received
      .map((r) => ({ r, body: JSON.parse(r.rawBody.toString('utf8')) }))
      .filter((x) => x.body.institution_id === w.institution.id);

  /** A purchase that redeems, then a settlement run, then a full refund: three redemption events. */
  async function purchaseSettleRefund(w: World) {
    const token = `chk_${uniq()}${uniq()}`;
    await api.http
      .post(`/api/v1/offers/${w.offers[0].id}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: token })
      .expect(201);
    const ref = uniq('ref-');
    const purchase = {
      cardholder_token: token,
      card_token: 'ctk_1',
      merchant_identifier: w.merchants[0].identifiers[0].value,
      amount: 25,
      transaction_ref: ref,
      transacted_at: new Date().toISOString(),
    };
    const tx = await api.http
      .post('/api/v1/transactions')
      .set('Authorization', w.auth)
      .send(purchase)
      .expect(202);
    const redemption = await eventually(
      async () =>
        (await db.query(`SELECT id FROM redemption WHERE transaction_id = $1`, [tx.body.id]))[0],
      'the redemption',
    );
    await api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .send({})
      .expect(200);
    await api.http
      .post('/api/v1/transactions')
      .set('Authorization', w.auth)
      .send({
        ...purchase,
        transaction_ref: uniq('ref-'),
        transaction_type: 'refund',
        original_transaction_ref: ref,
      })
      .expect(202);
    await eventually(
      async () =>
        (
          await db.query(`SELECT status FROM redemption WHERE id = $1 AND status = 'reversed'`, [
            redemption.id,
          ])
        )[0],
      'the reversal',
    );
    return redemption.id as string;
  }

  it('a new institution receives completed, settled and reversed; each body matches its schema in the OpenAPI document', async () => {
    const { world, admin, secret } = await setUp();
    expect((await admin.agent.get('/portal/api/webhook').expect(200)).body.event_types).toEqual([
      'redemption.completed',
      'redemption.reversed',
      'redemption.settled',
    ]);
    const redemptionId = await purchaseSettleRefund(world);
    const got = await eventually(
      async () => (bodiesFor(world).length >= 3 ? bodiesFor(world) : null),
      'three events',
      30_000,
    );
    expect(got.map((x) => x.body.event).sort()).toEqual([
      'redemption.completed',
      'redemption.reversed',
      'redemption.settled',
    ]);
    for (const { r, body } of got) {
      const name = SCHEMA_OF[body.event];
      const validate = ajv.getSchema(`#/components/schemas/${name}`)!;
      expect({ event: body.event, valid: validate(body), errors: validate.errors }).toEqual({
        event: body.event,
        valid: true,
        errors: null,
      });
      // nothing outside the schema, and every schema field present
      expect(Object.keys(body).sort()).toEqual(
        Object.keys(openapi.components.schemas[name].properties).sort(),
      );
      expect(body.redemption_id).toBe(redemptionId);
      expect(r.headers['x-service-event']).toBe(body.event);
      expect(verifyWebhook(r.rawBody, r.headers, secret).ok).toBe(true);
    }
    const reversed = got.find((x) => x.body.event === 'redemption.reversed')!.body;
    expect(reversed.clawback_amount).toEqual(expect.any(Number));
  });

  it('event types: chosen per institution, completed stays while a URL is set, validated, recorded', async () => {
    const { world, admin } = await setUp();
    const put = (types: unknown) =>
      admin.agent
        .put('/portal/api/webhook/event-types')
        .set('X-CSRF-Token', admin.csrf)
        .send({ event_types: types });
    for (const bad of [
      ['redemption.reversed'],
      ['redemption.completed', 'webhook.test'],
      ['redemption.completed', 'nope'],
      'redemption.completed',
    ])
      expect((await put(bad).expect(400)).body.error).toBe('validation_failed');
    const member = await portalLogin(api, world.member);
    await member.agent
      .put('/portal/api/webhook/event-types')
      .set('X-CSRF-Token', member.csrf)
      .send({ event_types: ['redemption.completed'] })
      .expect(403);
    expect((await put(['redemption.completed']).expect(200)).body.event_types).toEqual([
      'redemption.completed',
    ]);

    const redemptionId = await purchaseSettleRefund(world);
    await eventually(async () => bodiesFor(world).length >= 1, 'the completed event');
    const config = api.app.get(AppConfig);
    const q = openQueue(config.redis, config.queuePrefix, QUEUES.webhooks);
    await jobsSettled(q, '', 'webhook jobs').finally(() => closeQueue(q));
    expect(bodiesFor(world).map((x) => x.body.event)).toEqual(['redemption.completed']);
    expect(
      await db.query(`SELECT event FROM webhook_delivery WHERE redemption_id = $1`, [redemptionId]),
    ).toEqual([{ event: 'redemption.completed' }]);

    // without a URL completed may be off; setting a URL turns it back on
    await admin.agent
      .put('/portal/api/webhook')
      .set('X-CSRF-Token', admin.csrf)
      .send({ url: null })
      .expect(200);
    expect((await put(['redemption.settled']).expect(200)).body.event_types).toEqual([
      'redemption.settled',
    ]);
    const withUrl = await admin.agent
      .put('/portal/api/webhook')
      .set('X-CSRF-Token', admin.csrf)
      .send({ url: receiver.url })
      .expect(200);
    expect(withUrl.body.event_types).toEqual(['redemption.completed', 'redemption.settled']);
    const events = await db.query(
      `SELECT details FROM security_event WHERE institution_id = $1 AND type = 'webhook.event_types_changed' ORDER BY created_at`,
      [world.institution.id],
    );
    expect(events.map((e: { details: { to: string[] } }) => e.details.to)).toEqual([
      ['redemption.completed'],
      ['redemption.settled'],
    ]);
  });

  it('the migration: institutions that existed before it keep completed and reversed; new ones get all three', async () => {
    // replayed inside a transaction that is rolled back (PostgreSQL DDL is transactional)
    const qr = db.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    try {
      const migration = new WebhookEventCatalog1763800400100();
      // Deliveries of event types added after this migration (claim.resolved, …), made by other
      // files in this database, are unknown to its down: removed in this rolled-back transaction.
      await qr.query(
        `DELETE FROM webhook_delivery WHERE event NOT IN ('redemption.completed', 'redemption.reversed', 'redemption.settled', 'webhook.test')`,
      );
      await migration.down(qr);
      const [old] = await qr.query(
        `INSERT INTO institution (name, plan) VALUES ('Before the catalog', 'growth') RETURNING id`,
      );
      await migration.up(qr);
      const [fresh] = await qr.query(
        `INSERT INTO institution (name, plan) VALUES ('After the catalog', 'growth') RETURNING id`,
      );
      const types = async (id: string) =>
        (await qr.query(`SELECT webhook_event_types FROM institution WHERE id = $1`, [id]))[0]
          .webhook_event_types;
      expect(await types(old.id)).toEqual(['redemption.completed', 'redemption.reversed']);
      expect(await types(fresh.id)).toEqual([
        'redemption.completed',
        'redemption.reversed',
        'redemption.settled',
      ]);
    } finally {
      await qr.rollbackTransaction();
      await qr.release();
    }
  });
});
