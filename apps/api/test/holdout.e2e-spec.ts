import { randomUUID } from 'crypto';
import { DataSource } from 'typeorm';
import { HoldoutKeys } from '@app/core';
import { holdoutBucket, inHoldout } from '@app/domain';
import { createWorld, DAY, startApi, TestApi, World } from '@app/testing';
import { hmacPads, holdoutBucketSql, holdoutMacSql } from '../src/lift/lift.repository';
import { EngagementRecorder } from '../src/offers/engagement-recorder.service';

const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

/** Holdouts (docs/lift.md): the admin field, the assignment, and what held-out cardholders see. */
describe('holdouts', () => {
  let api: TestApi;
  let db: DataSource;
  let keys: HoldoutKeys;
  let recorder: EngagementRecorder;
  const op = () => ({ Authorization: `Bearer ${api.operatorToken}` });

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    keys = api.app.get(HoldoutKeys, { strict: false });
    recorder = api.app.get(EngagementRecorder);
  });
  afterAll(() => api.close());

  const patchOffer = (id: string, body: Record<string, unknown>) =>
    api.http.patch(`/admin/api/v1/offers/${id}`).set(op()).send(body);
  const feed = (w: World, token: string) =>
    api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: token })
      .set('Authorization', w.auth)
      .expect(200);
  const add = (w: World, offerId: string, token: string) =>
    api.http
      .post(`/api/v1/offers/${offerId}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: token });
  /** `n` tokens in the offer's holdout and `n` outside it, by the documented rule. */
  const tokens = (w: World, offerId: string, bps: number, n: number) => {
    const key = keys.of(w.institution.id);
    const inside: string[] = [];
    const outside: string[] = [];
    for (let i = 0; inside.length < n || outside.length < n; i++) {
      const t = `ch-${i}-${w.institution.id.slice(0, 8)}`;
      const list = inHoldout(key, offerId, t, bps) ? inside : outside;
      if (list.length < n) list.push(t);
    }
    return { inside, outside };
  };

  describe('holdout_percent on the admin API', () => {
    it('defaults to 0, echoes what was sent and is stored as basis points', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [{}, { holdout_percent: 12.5 }],
      });
      expect(w.offers[0].holdout_percent).toBe(0);
      expect(w.offers[1].holdout_percent).toBe(12.5);
      const [row] = await db.query(`SELECT holdout_bps FROM offer WHERE id = $1`, [w.offers[1].id]);
      expect(row.holdout_bps).toBe(1250);
    });

    it.each([50.1, -1, 12.25, 0.05, '10', null])(
      '%p is 400 validation_failed on holdout_percent',
      async (value) => {
        const w = await createWorld(api, { merchants: [{}] });
        const res = await api.http
          .post('/admin/api/v1/offers')
          .set(op())
          .send({
            merchant_id: w.merchants[0].id,
            status: 'draft',
            translations: { en: { title: 't' } },
            min_spend: 1,
            cashback_amount: 1,
            currency: 'USD',
            starts_at: iso(DAY),
            expires_at: iso(2 * DAY),
            holdout_percent: value,
          })
          .expect(400);
        expect(res.body).toMatchObject({
          error: 'validation_failed',
          details: [expect.objectContaining({ field: 'holdout_percent' })],
        });
      },
    );

    it('changes while the offer has not been live and no one added it; 409 holdout_locked afterwards', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [
          { status: 'draft', starts_at: iso(-DAY) },
          { status: 'active', starts_at: iso(DAY), expires_at: iso(3 * DAY) },
          { status: 'active' },
        ],
      });
      const [draft, future, live] = w.offers.map((o) => o.id);
      // A draft (even past its start) and an active offer before its start may change.
      expect(
        (await patchOffer(draft, { holdout_percent: 20 }).expect(200)).body.holdout_percent,
      ).toBe(20);
      await patchOffer(future, { holdout_percent: 5 }).expect(200);
      // Active at or after starts_at: locked, also after a pause; sending the same value is fine.
      const locked = await patchOffer(live, { holdout_percent: 10 }).expect(409);
      expect(locked.body.error).toBe('holdout_locked');
      await patchOffer(live, { holdout_percent: 0 }).expect(200);
      await patchOffer(draft, { status: 'active' }).expect(200);
      await patchOffer(draft, { status: 'paused' }).expect(200);
      expect((await patchOffer(draft, { holdout_percent: 30 }).expect(409)).body.error).toBe(
        'holdout_locked',
      );
      // An enrollment locks it too (the future offer is enrollable once it starts: simulate that).
      const w2 = await createWorld(api, { merchants: [{}], offers: [{ status: 'active' }] });
      await db.query(
        `UPDATE offer SET has_been_live = false, starts_at = now() + interval '1 day' WHERE id = $1`,
        [w2.offers[0].id],
      );
      await db.query(
        `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token) VALUES ($1, $2, 'ch-enrolled')`,
        [w2.institution.id, w2.offers[0].id],
      );
      expect(
        (await patchOffer(w2.offers[0].id, { holdout_percent: 10 }).expect(409)).body.error,
      ).toBe('holdout_locked');
    });
  });

  describe('assignment', () => {
    it('is stable, the same in PostgreSQL as in the api, and close to the configured share (10,000 tokens at 20%: 18–22%)', async () => {
      const w = await createWorld(api);
      const offerId = randomUUID();
      const key = keys.of(w.institution.id);
      const all = Array.from({ length: 10_000 }, (_, i) => `tok-${i}`);
      const js = all.map((t) => holdoutBucket(key, offerId, t));
      const held = js.filter((u) => u < 2000).length;
      expect(held).toBeGreaterThanOrEqual(1800);
      expect(held).toBeLessThanOrEqual(2200);
      // Stable: derived again from the secrets key, the same buckets.
      expect(all.map((t) => holdoutBucket(keys.of(w.institution.id), offerId, t))).toEqual(js);
      // The lift report assigns in PostgreSQL by the same formula: the same bucket for every token.
      const pads = hmacPads(w.institution.id, key);
      const rows: { u: number }[] = await db.query(
        `SELECT ${holdoutBucketSql('m.mac')}::int AS u
           FROM unnest($4::text[]) WITH ORDINALITY AS x(t, i)
           CROSS JOIN LATERAL (SELECT ${holdoutMacSql('$1::bytea', '$2::bytea', '$3::text', 'x.t')} AS mac) m
          ORDER BY x.i`,
        [pads.inner, pads.outer, offerId, all],
      );
      expect(rows.map((r) => r.u)).toEqual(js);
    });
  });

  describe('a held-out cardholder', () => {
    let w: World;
    let offer: string;
    let inside: string[];
    let outside: string[];
    beforeAll(async () => {
      w = await createWorld(api, {
        merchants: [{}],
        offers: [{ holdout_percent: 50, priority: 2 }, { priority: 1 }],
      });
      offer = w.offers[0].id;
      ({ inside, outside } = tokens(w, offer, 5000, 5));
    });

    it('does not see the offer in the feed, nor in total; others do', async () => {
      for (const t of inside) {
        const res = await feed(w, t);
        expect(res.body.offers.map((o: { id: string }) => o.id)).toEqual([w.offers[1].id]);
        expect(res.body.total).toBe(1);
      }
      for (const t of outside) {
        const res = await feed(w, t);
        expect(res.body.offers.map((o: { id: string }) => o.id)).toEqual([offer, w.offers[1].id]);
        expect(res.body.total).toBe(2);
      }
    });

    it('gets the 404 of an offer the institution does not have, and nothing is recorded', async () => {
      const t = inside[0];
      const unknown = await add(w, randomUUID(), t).expect(404);
      const held = await add(w, offer, t).expect(404);
      const { request_id: a, ...unknownBody } = unknown.body;
      const { request_id: b, ...heldBody } = held.body;
      expect(a).not.toBe(b);
      expect(heldBody).toEqual(unknownBody);
      expect(held.headers['content-type']).toBe(unknown.headers['content-type']);
      // Before offer_unavailable too: a paused offer answers the same 404.
      await patchOffer(w.offers[0].id, { status: 'paused' }).expect(200);
      expect((await add(w, offer, inside[1]).expect(404)).body.error).toBe('offer_not_found');
      await patchOffer(w.offers[0].id, { status: 'active' }).expect(200);
      await add(w, offer, outside[0]).expect(201);
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM cardholder_offer WHERE offer_id = $1 AND cardholder_token = ANY($2)`,
        [offer, inside],
      );
      expect(n).toBe(0);
    });

    it('records the widget view, no impression of the hidden offer, and nothing for a refused add', async () => {
      const t = inside[2];
      await feed(w, t);
      await add(w, offer, t).expect(404);
      await recorder.flush();
      const events = await db.query(
        `SELECT kind, offer_id FROM engagement_event WHERE institution_id = $1 AND cardholder_token = $2 ORDER BY id`,
        [w.institution.id, t],
      );
      // The first test's feed call and this one: two views, each with the other offer only.
      expect(events).toEqual([
        { kind: 'widget_view', offer_id: null },
        { kind: 'impression', offer_id: w.offers[1].id },
        { kind: 'widget_view', offer_id: null },
        { kind: 'impression', offer_id: w.offers[1].id },
      ]);
    });

    it('sees the same in the widget: not in its feed, 404 on its add', async () => {
      const session = async (t: string) =>
        (
          await api.http
            .post('/api/v1/cardholder-sessions')
            .set('Authorization', w.auth)
            .send({ cardholder_token: t })
            .expect(201)
        ).body.session_token as string;
      const s = await session(inside[3]);
      const wf = await api.http
        .get('/widget/v1/offers')
        .set('Authorization', `Bearer ${s}`)
        .expect(200);
      expect(wf.body.offers.map((o: { id: string }) => o.id)).toEqual([w.offers[1].id]);
      expect(wf.body.total).toBe(1);
      const wa = await api.http
        .post(`/widget/v1/offers/${offer}/add`)
        .set('Authorization', `Bearer ${s}`)
        .expect(404);
      expect(wa.body.error).toBe('offer_not_found');
      const o = await session(outside[1]);
      await api.http
        .post(`/widget/v1/offers/${offer}/add`)
        .set('Authorization', `Bearer ${o}`)
        .expect(201);
    });
  });
});
