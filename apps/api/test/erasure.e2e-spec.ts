// A pending erasure is tried again quickly here (read at app start).
Object.assign(process.env, { ERASURE_RETRY_MS: '300' });

import { Queue } from 'bullmq';
import { randomUUID } from 'crypto';
import { AppConfig } from '@app/config';
import { HoldoutKeys } from '@app/core';
import { DAY_MS, holdoutBucket, inHoldout, isPseudonym, maskToken } from '@app/domain';
import type { Redis } from 'ioredis';
import { createRedis } from '@app/queue';
import {
  apiAndWorker,
  configureWebhook,
  createWorld,
  enrollBeforePurchase,
  eventually,
  insertRedemptionDelivery,
  obliterateQueues,
  offerBody,
  portalLogin,
  uniq,
  WebhookReceiver,
  World,
} from '@app/testing';
import { EngagementRecorder } from '../src/offers/engagement-recorder.service';

/**
 * Right to erasure and of access (docs/privacy.md): a cardholder with enrollments, purchases,
 * redemptions, webhooks, a settled entry, funnel events and a CSV upload is erased; afterwards no
 * column of any table (nor the queues' job data in Redis) holds the token or its masked form,
 * reporting and statement figures are unchanged and the feed sees a new cardholder, while another
 * institution's cardholder with the same token is untouched.
 */
describe('cardholder erasure', () => {
  const t = apiAndWorker();
  const receiver = new WebhookReceiver();
  const ALL = ['offers', 'transactions', 'reporting', 'privacy'];
  const today = () => new Date().toISOString().slice(0, 10);

  let w: World;
  let other: World;
  /** w's institution with a key of the published scopes only. */
  let plainAuth: string;

  const worldOptions = {
    scopes: ALL,
    plan: 'growth' as const,
    program: { time_zone: 'UTC' },
    rateLimits: { reporting: 10_000, offers: 10_000, transactions: 10_000 },
    merchants: [{}],
    offers: [{ min_spend: 20, cashback_amount: 5, max_redemptions_per_cardholder: 5 }],
  };

  beforeAll(async () => {
    await receiver.start();
    w = await createWorld(t.api, worldOptions);
    other = await createWorld(t.api, worldOptions);
    for (const world of [w, other])
      await configureWebhook(await portalLogin(t.api, world.admin), receiver.url);
    const key = await t.api.http
      .post(`/admin/api/v1/institutions/${w.institution.id}/api-keys`)
      .set('Authorization', t.op())
      .send({ name: 'published scopes' })
      .expect(201);
    expect(key.body.scopes).toEqual(['offers', 'transactions', 'reporting']);
    plainAuth = `Bearer ${key.body.key}`;
  });

  afterAll(async () => {
    await receiver.stop();
    await obliterateQueues(t.api, ['privacy', 'webhooks', 'csv-import']);
    const config = t.api.app.get(AppConfig);
    const probe = new Queue('erasure-probe', {
      connection: { url: config.redis.url },
      prefix: config.queuePrefix,
    });
    await probe.obliterate({ force: true }).catch(() => undefined);
    await probe.close();
  });

  const get = (path: string, world: World = w) =>
    t.api.http.get(path).set('Authorization', world.auth);

  const enroll = (world: World, token: string) =>
    enrollBeforePurchase(t.api, world, token, { body: { card_token: `${token}-card` } });

  /** Posts a purchase and waits until matching has decided it. */
  async function purchase(world: World, token: string, amount = 25): Promise<string> {
    const res = await t.api.http
      .post('/api/v1/transactions')
      .set('Authorization', world.auth)
      .send({
        cardholder_token: token,
        card_token: `${token}-card`,
        transaction_ref: uniq('p-'),
        merchant_identifier: world.merchants[0].identifiers[0].value,
        transacted_at: new Date().toISOString(),
        amount,
      })
      .expect(202);
    await eventually(
      async () =>
        (await t.db.query(`SELECT status FROM transaction WHERE id = $1`, [res.body.id]))[0]
          ?.status !== 'received',
      'matched',
    );
    return res.body.id;
  }

  async function uploadCsv(world: World, token: string): Promise<void> {
    const admin = await portalLogin(t.api, world.admin);
    const ca = world.merchants[0].identifiers[0].value;
    const csv =
      'cardholder_token,card_token,card_acceptor_id,amount,transaction_ref,transacted_at\n' +
      `${token},${token}-card,${ca},10,${uniq('csv-')},${new Date().toISOString()}\n`;
    const res = await admin.agent
      .post('/portal/api/transactions/uploads')
      .set('X-CSRF-Token', admin.csrf)
      .attach('file', Buffer.from(csv), 'purchases.csv')
      .expect(202);
    await eventually(async () => {
      const r = await admin.agent.get(`/portal/api/transactions/uploads/${res.body.id}`);
      return r.body.status === 'completed';
    }, 'the upload imported');
  }

  const deliveriesDone = (world: World) =>
    eventually(async () => {
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM webhook_delivery WHERE institution_id = $1 AND status = 'pending'`,
        [world.institution.id],
      );
      return n === 0;
    }, 'every delivery sent');

  async function erase(world: World, token: string): Promise<Record<string, unknown>> {
    const res = await t.api.http
      .post('/api/v1/cardholders/erasure')
      .set('Authorization', world.auth)
      .send({ cardholder_token: token })
      .expect(202);
    expect(res.body).toEqual({ id: expect.any(String), status: 'pending' });
    return eventually(async () => {
      const r = await get(`/api/v1/cardholders/erasure/${res.body.id}`, world).expect(200);
      return r.body.status === 'completed' ? (r.body as Record<string, unknown>) : null;
    }, 'the erasure completed');
  }

  /**
   * Every text, varchar, char, json, jsonb and bytea column (and arrays of them) of every table:
   * the rows that hold `needle`, as "table.column" → count, leaving out the rows of `spare`
   * (institution_id = spare) where the table has that column.
   */
  async function holders(needle: string, spare: string): Promise<Record<string, number>> {
    const columns: { table: string; column: string; type: string; scoped: boolean }[] =
      await t.db.query(
        `SELECT c.table_name AS table, c.column_name AS column, c.udt_name AS type,
                EXISTS (SELECT 1 FROM information_schema.columns i
                         WHERE i.table_schema = 'public' AND i.table_name = c.table_name
                           AND i.column_name = 'institution_id') AS scoped
           FROM information_schema.columns c
           JOIN information_schema.tables tb
             ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
          WHERE c.table_schema = 'public' AND tb.table_type = 'BASE TABLE'
            AND c.udt_name IN ('text', 'varchar', 'bpchar', 'json', 'jsonb', 'bytea',
                               '_text', '_varchar', '_bpchar', '_json', '_jsonb', '_bytea')`,
      );
    expect(columns.length).toBeGreaterThan(50);
    const found: Record<string, number> = {};
    for (const c of columns) {
      const col = `"${c.column}"`;
      const holds =
        c.type === 'bytea'
          ? `position(convert_to($1, 'UTF8') IN ${col}) > 0`
          : `strpos(${col}::text, $1) > 0`;
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM "${c.table}" WHERE ${holds}${c.scoped ? ` AND institution_id IS DISTINCT FROM $2` : ''}`,
        c.scoped ? [needle, spare] : [needle],
      );
      if (n) found[`${c.table}.${c.column}`] = n;
    }
    return found;
  }

  /** Every value under the queues' prefix in Redis that holds `needle`. */
  async function redisHolders(needle: string): Promise<string[]> {
    const config = t.api.app.get(AppConfig);
    const redis = createRedis({ url: config.redis.url }, 'fast', {
      enableOfflineQueue: true,
    }) as Redis;
    try {
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(
          cursor,
          'MATCH',
          `${config.queuePrefix}:*`,
          'COUNT',
          500,
        );
        cursor = next;
        for (const key of keys) {
          const type = await redis.type(key);
          const value =
            type === 'hash'
              ? await redis.hgetall(key)
              : type === 'list'
                ? await redis.lrange(key, 0, -1)
                : type === 'stream'
                  ? await redis.xrange(key, '-', '+')
                  : type === 'string'
                    ? await redis.get(key)
                    : type === 'zset'
                      ? await redis.zrange(key, 0, -1)
                      : type === 'set'
                        ? await redis.smembers(key)
                        : null;
          if (JSON.stringify(value ?? '').includes(needle)) found.push(key);
        }
      } while (cursor !== '0');
      return found;
    } finally {
      redis.disconnect();
    }
  }

  async function figures(world: World) {
    const redemptions = (await get('/api/v1/reporting/redemptions?limit=100', world).expect(200))
      .body.data as Record<string, unknown>[];
    const settlements = (await get('/api/v1/reporting/settlements?limit=100', world).expect(200))
      .body.data as Record<string, unknown>[];
    const [day] = (
      await get(`/api/v1/statements?granularity=day&from=${today()}&to=${today()}`, world).expect(
        200,
      )
    ).body.data as Record<string, unknown>[];
    const funnel = (await get('/api/v1/reporting/funnel', world).expect(200)).body.data as Record<
      string,
      unknown
    >;
    const lines = (
      await get(`/api/v1/statements/${day.id as string}/lines?limit=100`, world).expect(200)
    ).body.data as Record<string, unknown>[];
    return { redemptions, settlements, day, funnel, lines };
  }

  it('needs the privacy scope: 403 insufficient_scope for a key of the published scopes', async () => {
    const token = `chk_${uniq()}`;
    const post = await t.api.http
      .post('/api/v1/cardholders/erasure')
      .set('Authorization', plainAuth)
      .send({ cardholder_token: token })
      .expect(403);
    expect(post.body.error).toBe('insufficient_scope');
    const exported = await t.api.http
      .get(`/api/v1/cardholders/${token}/export`)
      .set('Authorization', plainAuth)
      .expect(403);
    expect(exported.body.error).toBe('insufficient_scope');
    const read = await t.api.http
      .get(`/api/v1/cardholders/erasure/${randomUUID()}`)
      .set('Authorization', plainAuth)
      .expect(403);
    expect(read.body.error).toBe('insufficient_scope');
  });

  it('erases a cardholder everywhere; figures stay; the token is then a new cardholder; another institution keeps its own', async () => {
    const token = `erz_${uniq()}${uniq()}`;
    const masked = maskToken(token);

    // The cardholder at w: the feed, an enrollment, three purchases (two rewarded), a CSV upload,
    // settlement of everything, webhooks for all of it; the same token at the other institution.
    for (const world of [w, other]) {
      await get(`/api/v1/offers?cardholder_token=${token}`, world).expect(200);
      await enroll(world, token);
      await purchase(world, token);
    }
    await purchase(w, token, 30);
    await purchase(w, token, 5); // below min_spend: stored, not rewarded
    await uploadCsv(w, token);
    // The import drops a file once it is done; an upload finished by an earlier version may still
    // hold its file, and its report may quote a refused line.
    await t.db.query(
      `INSERT INTO csv_upload (institution_id, filename, size_bytes, content, status, invalid, invalid_count)
       VALUES ($1, 'old.csv', 64, $2, 'completed', $3, 1)`,
      [
        w.institution.id,
        Buffer.from(`cardholder_token,amount\n${token},12\n${token},x\n`),
        JSON.stringify([
          { line: 3, errors: [{ field: 'amount', message: `bad amount for ${token}` }] },
        ]),
      ],
    );
    await t.api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', t.op())
      .send({ as_of: new Date(Date.now() + 365 * DAY_MS).toISOString() })
      .expect(200);
    await deliveriesDone(w);
    await deliveriesDone(other);
    await t.api.app.get(EngagementRecorder).flush();
    // Job data that quotes the token (as a failure message might).
    const config = t.api.app.get(AppConfig);
    const probe = new Queue('erasure-probe', {
      connection: { url: config.redis.url },
      prefix: config.queuePrefix,
    });
    await probe.add('note', { note: `about ${token}` });
    await probe.close();

    const before = await figures(w);
    expect(before.redemptions).toHaveLength(2);
    expect(before.settlements.every((s) => s.status === 'settled')).toBe(true);
    expect(before.redemptions.map((r) => r.cardholder_token_masked)).toEqual([masked, masked]);
    const exported = (
      await get(`/api/v1/cardholders/${encodeURIComponent(token)}/export`).expect(200)
    ).body;
    expect(exported).toMatchObject({ cardholder_token: token });
    expect(exported.enrollments).toHaveLength(1);
    expect(exported.transactions).toHaveLength(4);
    expect(exported.redemptions).toHaveLength(2);
    expect(exported.webhook_deliveries).toHaveLength(4); // completed and settled, twice
    expect(exported.engagement_events.length).toBeGreaterThan(0);
    expect(await redisHolders(token)).not.toEqual([]);
    const beforeHolders = await holders(token, other.institution.id);
    expect(Object.keys(beforeHolders)).toEqual(
      expect.arrayContaining([
        'transaction.cardholder_token',
        'cardholder_offer.cardholder_token',
        'redemption.cardholder_token',
        'webhook_delivery.payload',
        'engagement_event.cardholder_token',
        'csv_upload.content',
        'csv_upload.invalid',
      ]),
    );

    const done = await erase(w, token);
    expect(done).toEqual({
      id: expect.any(String),
      status: 'completed',
      requested_at: expect.any(String),
      completed_at: expect.any(String),
      erased: {
        enrollments: 1,
        transactions: 4,
        redemptions: 2,
        engagement_events: exported.engagement_events.length,
        webhook_deliveries: 4,
        goal_progress: 0,
        claims: 0,
        sessions: 0,
      },
    });

    // Nowhere: no column of any table, but the other institution's own rows.
    expect(await holders(token, other.institution.id)).toEqual({});
    expect(await holders(masked, other.institution.id)).toEqual({});
    expect(await redisHolders(token)).toEqual([]);
    // The record of the erasure: who and what, never the token.
    const [record] = await t.db.query(
      `SELECT requested_by, cardholder_token, erased FROM cardholder_erasure WHERE id = $1`,
      [done.id],
    );
    expect(record).toMatchObject({ cardholder_token: null, erased: done.erased });
    expect(record.requested_by).toContain('plo_live_');
    const activity = await t.db.query(
      `SELECT type FROM security_event WHERE institution_id = $1 AND details->>'erasure_id' = $2 ORDER BY created_at`,
      [w.institution.id, done.id],
    );
    expect(activity.map((a: { type: string }) => a.type)).toEqual([
      'cardholder.erasure_requested',
      'cardholder.erased',
    ]);
    // The same two in the audit log, which the portal's security activity reads.
    const entries = await t.db.query(
      `SELECT action, actor_type, after->>'requested_by' AS requested_by FROM audit_log
        WHERE institution_id = $1 AND resource_id = $2 ORDER BY seq`,
      [w.institution.id, done.id],
    );
    expect(entries).toEqual([
      {
        action: 'cardholder.erasure_requested',
        actor_type: 'staff',
        requested_by: record.requested_by,
      },
      { action: 'cardholder.erased', actor_type: 'system', requested_by: record.requested_by },
    ]);

    // One pseudonym replaced it, with a mask of its own; the money is as it was.
    const pseudonyms: { token: string }[] = await t.db.query(
      `SELECT DISTINCT cardholder_token AS token FROM transaction WHERE institution_id = $1 AND id = ANY($2::uuid[])`,
      [w.institution.id, exported.transactions.map((x: { id: string }) => x.id)],
    );
    expect(pseudonyms).toHaveLength(1);
    expect(isPseudonym(pseudonyms[0].token)).toBe(true);
    const after = await figures(w);
    const pseudoMask = maskToken(pseudonyms[0].token);
    expect(pseudoMask).toMatch(/^erased_\*\*\*\*.{4}$/);
    expect(after.redemptions).toEqual(
      before.redemptions.map((r) => ({ ...r, cardholder_token_masked: pseudoMask })),
    );
    expect(after.settlements).toEqual(before.settlements);
    expect(after.day).toEqual(before.day);
    expect(after.lines).toEqual(before.lines);
    expect(after.funnel).toEqual(before.funnel);

    // The same token is a new cardholder: no enrollment, no history.
    const feed = (await get(`/api/v1/offers?cardholder_token=${token}`).expect(200)).body;
    expect(feed.offers.find((o: { id: string }) => o.id === w.offers[0].id)).toMatchObject({
      added: false,
    });
    const empty = (await get(`/api/v1/cardholders/${encodeURIComponent(token)}/export`).expect(200))
      .body;
    expect(empty).toMatchObject({
      enrollments: [],
      transactions: [],
      redemptions: [],
      webhook_deliveries: [],
    });

    // The other institution's cardholder with the same token is untouched.
    const theirs = (
      await get(`/api/v1/cardholders/${encodeURIComponent(token)}/export`, other).expect(200)
    ).body;
    expect(theirs.enrollments).toHaveLength(1);
    expect(theirs.transactions).toHaveLength(1);
    expect(theirs.redemptions).toHaveLength(1);
    // ...and cannot read this institution's erasure.
    const notTheirs = await get(`/api/v1/cardholders/erasure/${done.id as string}`, other).expect(
      404,
    );
    expect(notTheirs.body.error).toBe('erasure_not_found');

    // A repeat erases what arrived since, under a new pseudonym.
    await get(`/api/v1/offers?cardholder_token=${token}`).expect(200);
    await purchase(w, token, 12);
    await t.api.app.get(EngagementRecorder).flush();
    const again = await erase(w, token);
    expect(again.id).not.toBe(done.id);
    expect(again.erased).toMatchObject({ transactions: 1, enrollments: 0, redemptions: 0 });
    expect(await holders(token, other.institution.id)).toEqual({});
  });

  it('stays pending while a delivery for the cardholder is pending; completes once it is not; the body then carries the pseudonym', async () => {
    const d = await insertRedemptionDelivery(t.db, w.institution.id);
    const token = d.payload.cardholder_token as string;
    // A second event of the redemption, held back: marked as queued and due tomorrow, so neither
    // the relay nor an attempt sends it during the test.
    const [held] = await t.db.query(
      `INSERT INTO webhook_delivery (institution_id, redemption_id, event, payload, enqueued_at, next_attempt_at)
       VALUES ($1, $2, 'redemption.settled', $3, now(), now() + interval '1 day') RETURNING id`,
      [
        w.institution.id,
        d.redemptionId,
        JSON.stringify({ ...d.payload, event: 'redemption.settled' }),
      ],
    );
    const res = await t.api.http
      .post('/api/v1/cardholders/erasure')
      .set('Authorization', w.auth)
      .send({ cardholder_token: token })
      .expect(202);
    await eventually(async () => {
      const [row] = await t.db.query(
        `SELECT status, waiting_deliveries FROM cardholder_erasure WHERE id = $1`,
        [res.body.id],
      );
      return row.status === 'pending' && row.waiting_deliveries >= 1;
    }, 'the erasure waiting for the delivery');
    expect(
      (await get(`/api/v1/cardholders/erasure/${res.body.id}`).expect(200)).body,
    ).toMatchObject({
      status: 'pending',
      completed_at: null,
      erased: { transactions: 0 },
    });

    await t.db.query(
      `UPDATE webhook_delivery SET status = 'delivered', delivered_at = now() WHERE id = $1`,
      [held.id],
    );
    await eventually(async () => {
      const r = await get(`/api/v1/cardholders/erasure/${res.body.id}`).expect(200);
      return r.body.status === 'completed';
    }, 'the erasure completed once no delivery is pending');
    const [{ payload }] = await t.db.query(`SELECT payload FROM webhook_delivery WHERE id = $1`, [
      held.id,
    ]);
    expect(isPseudonym(payload.cardholder_token)).toBe(true);
    expect(payload).toEqual({
      ...d.payload,
      event: 'redemption.settled',
      cardholder_token: payload.cardholder_token,
      cardholder_token_masked: maskToken(payload.cardholder_token),
    });
  });

  it('waits while the institution is under legal hold; erases once the hold is lifted', async () => {
    const token = `erz_${uniq()}${uniq()}`;
    await purchase(w, token, 7);
    const hold = `/admin/api/v1/institutions/${w.institution.id}/legal-hold`;
    await t.api.http
      .put(hold)
      .set('Authorization', t.op())
      .send({ reason: 'litigation' })
      .expect(200);
    try {
      const res = await t.api.http
        .post('/api/v1/cardholders/erasure')
        .set('Authorization', w.auth)
        .send({ cardholder_token: token })
        .expect(202);
      await eventually(async () => {
        const [row] = await t.db.query(
          `SELECT status, waiting_for FROM cardholder_erasure WHERE id = $1`,
          [res.body.id],
        );
        return row.status === 'pending' && row.waiting_for === 'legal_hold';
      }, 'the erasure waiting for the hold');
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM transaction WHERE institution_id = $1 AND cardholder_token = $2`,
        [w.institution.id, token],
      );
      expect(n).toBe(1);
      await t.api.http.delete(hold).set('Authorization', t.op()).expect(204);
      const done = await eventually(async () => {
        const r = await get(`/api/v1/cardholders/erasure/${res.body.id}`).expect(200);
        return r.body.status === 'completed' ? r.body : null;
      }, 'the erasure completed once the hold was lifted');
      expect(done.erased.transactions).toBe(1);
    } finally {
      await t.api.http.delete(hold).set('Authorization', t.op());
    }
  });

  it('an erased cardholder keeps its holdout group: the lift report counts it as before', async () => {
    const h = await createWorld(t.api, { ...worldOptions, offers: [] });
    const created = await t.api.http
      .post('/admin/api/v1/offers')
      .set('Authorization', t.op())
      .send(
        offerBody(h.merchants[0].id, { institution_ids: [h.institution.id], holdout_percent: 50 }),
      )
      .expect(201);
    const offer = created.body.id as string;
    const key = t.api.app.get(HoldoutKeys).of(h.institution.id);
    const held: string[] = [];
    const exposed: string[] = [];
    while (held.length < 2 || exposed.length < 2) {
      const token = `erz_${uniq()}${uniq()}`;
      const list = inHoldout(key, offer, token, 5000) ? held : exposed;
      if (list.length < 2) list.push(token);
    }
    for (const token of [...held, ...exposed]) await purchase(h, token, 25);
    const lift = (query: string) =>
      t.api.http
        .get(`/admin/api/v1/offers/${offer}/lift${query}`)
        .set('Authorization', t.op())
        .expect(200);
    // Two reads of the same figures: by institution before, over every institution after (the
    // offer is offered to h alone), so that no reused result answers the second.
    const before = (await lift(`?institution_id=${h.institution.id}`)).body.groups;
    expect([before.holdout.cardholders, before.exposed.cardholders]).toEqual([2, 2]);

    const erased = [held[0], exposed[0]];
    for (const token of erased) await erase(h, token);
    const kept: { token: string; bucket: number }[] = await t.db.query(
      `SELECT cardholder_token AS token, bucket FROM erased_holdout_bucket
        WHERE institution_id = $1 AND offer_id = $2 ORDER BY bucket`,
      [h.institution.id, offer],
    );
    expect(kept.map((k) => k.bucket)).toEqual(
      erased.map((token) => holdoutBucket(key, offer, token)).sort((a, b) => a - b),
    );
    expect(kept.every((k) => isPseudonym(k.token))).toBe(true);
    const after = (await lift('')).body.groups;
    expect(after).toEqual(before);
  });

  it('validates the request: a missing token, a bad id, an unknown id', async () => {
    const missing = await t.api.http
      .post('/api/v1/cardholders/erasure')
      .set('Authorization', w.auth)
      .send({})
      .expect(400);
    expect(missing.body.error).toBe('validation_failed');
    await get('/api/v1/cardholders/erasure/not-a-uuid').expect(400);
    const unknown = await get(`/api/v1/cardholders/erasure/${randomUUID()}`).expect(404);
    expect(unknown.body.error).toBe('erasure_not_found');
  });

  it('keys: the privacy scope is never implied; an operator or an admin grants it, a developer (who manages keys) cannot', async () => {
    const me = (await t.api.http.get('/api/v1/me').set('Authorization', plainAuth).expect(200))
      .body;
    expect(me.key.scopes).toEqual(['offers', 'transactions', 'reporting']);
    const admin = await portalLogin(t.api, w.admin);
    const created = await admin.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'privacy desk', scopes: ['privacy'] })
      .expect(201);
    expect(created.body.scopes).toEqual(['privacy']);
    const developer = { email: `${uniq('dev-')}@bank.test`, password: 'correct horse battery' };
    await t.api.http
      .post(`/admin/api/v1/institutions/${w.institution.id}/users`)
      .set('Authorization', t.op())
      .send({ ...developer, role: 'developer' })
      .expect(201);
    const dev = await portalLogin(t.api, developer);
    const refused = await dev.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', dev.csrf)
      .send({ name: 'privacy desk', scopes: ['offers', 'privacy'] })
      .expect(403);
    expect(refused.body.error).toBe('forbidden');
    await dev.agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', dev.csrf)
      .send({ name: 'backend', scopes: ['offers'] })
      .expect(201);
  });
});
