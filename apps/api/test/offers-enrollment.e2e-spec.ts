import { randomUUID } from 'crypto';
import { DataSource } from 'typeorm';
import { createWorld, DAY, eventually, startApi, TestApi, uniq, World } from '@app/testing';
import { EngagementRecorder } from '../src/offers/engagement-recorder.service';

const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

describe('POST /api/v1/offers/{id}/add (enrollment)', () => {
  let api: TestApi;
  let db: DataSource;
  const op = () => ({ Authorization: `Bearer ${api.operatorToken}` });

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    // Listen once, so that many concurrent supertest requests share one server.
    await new Promise<void>((resolve) => api.app.getHttpServer().listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => api.close());

  const add = (w: World, offerId: string, body: Record<string, unknown>) =>
    api.http.post(`/api/v1/offers/${offerId}/add`).set('Authorization', w.auth).send(body);
  const patchOffer = (id: string, body: Record<string, unknown>) =>
    api.http.patch(`/admin/api/v1/offers/${id}`).set(op()).send(body).expect(200);

  it('201 added on the first add, 200 already_added with the same id on every later one', async () => {
    const w = await createWorld(api, { merchants: [{}], offers: [{}] });
    const offer = w.offers[0].id;
    const first = await add(w, offer, {
      cardholder_token: 'ch-1',
      card_token: 'card-tok-1',
    }).expect(201);
    expect(first.body).toEqual({
      status: 'added',
      cardholder_offer_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const again = await add(w, offer, { cardholder_token: 'ch-1' }).expect(200);
    expect(again.body).toEqual({
      status: 'already_added',
      cardholder_offer_id: first.body.cardholder_offer_id,
    });

    const [row] = await db.query(
      `SELECT institution_id, offer_id, cardholder_token, card_token, status, redemption_count FROM cardholder_offer WHERE id = $1`,
      [first.body.cardholder_offer_id],
    );
    expect(row).toEqual({
      institution_id: w.institution.id,
      offer_id: offer,
      cardholder_token: 'ch-1',
      card_token: 'card-tok-1',
      status: 'active',
      redemption_count: 0,
    });
    const feed = await api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: 'ch-1' })
      .set('Authorization', w.auth)
      .expect(200);
    expect(feed.body.offers[0]).toMatchObject({ id: offer, added: true });
  });

  describe('404 offer_not_found', () => {
    it('for an unknown offer', async () => {
      const w = await createWorld(api);
      const res = await add(w, randomUUID(), { cardholder_token: 'ch-x' }).expect(404);
      expect(res.body).toMatchObject({
        error: 'offer_not_found',
        request_id: res.headers['x-request-id'],
      });
    });

    it("for another institution's targeted offer, which this institution's key cannot enroll into", async () => {
      const a = await createWorld(api, { merchants: [{}], offers: [{}] });
      const b = await createWorld(api);
      const res = await add(b, a.offers[0].id, { cardholder_token: 'ch-x' }).expect(404);
      expect(res.body.error).toBe('offer_not_found');
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM cardholder_offer WHERE offer_id = $1`,
        [a.offers[0].id],
      );
      expect(n).toBe(0);
    });

    it('400 validation_failed for an offer id that is not a UUID', async () => {
      const w = await createWorld(api);
      const res = await add(w, 'not-a-uuid', { cardholder_token: 'ch-x' }).expect(400);
      expect(res.body).toMatchObject({ error: 'validation_failed', details: [{ field: 'id' }] });
    });
  });

  it.each([
    ['paused', { status: 'paused' }],
    ['a draft', { status: 'draft' }],
    ['ended', { status: 'ended' }],
    ['expired', { starts_at: iso(-3 * DAY), expires_at: iso(-DAY) }],
    ['not started yet', { starts_at: iso(DAY), expires_at: iso(3 * DAY) }],
    ['out of budget', { budget_total: 5.5, cashback_amount: 5, merchant_fee_amount: 1 }],
  ])('409 offer_unavailable for an offer that is %s', async (_, over) => {
    const w = await createWorld(api, { merchants: [{}], offers: [over] });
    const res = await add(w, w.offers[0].id, { cardholder_token: 'ch-u' }).expect(409);
    expect(res.body.error).toBe('offer_unavailable');
  });

  it('409 offer_unavailable once matching has used up the budget', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ budget_total: 50, cashback_amount: 5 }],
    });
    await add(w, w.offers[0].id, { cardholder_token: 'ch-b1' }).expect(201);
    await db.query(`UPDATE offer_budget SET budget_used = 4600 WHERE offer_id = $1`, [
      w.offers[0].id,
    ]);
    expect(
      (await add(w, w.offers[0].id, { cardholder_token: 'ch-b2' }).expect(409)).body.error,
    ).toBe('offer_unavailable');
  });

  describe('segments', () => {
    let w: World;
    beforeAll(async () => {
      w = await createWorld(api, {
        merchants: [{}],
        offers: [{ segments: ['gold', 'platinum'] }, {}],
      });
    });

    it('403 segment_not_eligible without a segment or with one that does not match', async () => {
      for (const body of [
        { cardholder_token: 'ch-s' },
        { cardholder_token: 'ch-s', segment: 'silver' },
        { cardholder_token: 'ch-s', segment: 'Gold' },
      ]) {
        const res = await add(w, w.offers[0].id, body).expect(403);
        expect(res.body).toMatchObject({ error: 'segment_not_eligible' });
      }
    });

    it('201 with a matching segment; an unrestricted offer needs none and ignores one', async () => {
      await add(w, w.offers[0].id, { cardholder_token: 'ch-s', segment: 'platinum' }).expect(201);
      await add(w, w.offers[1].id, { cardholder_token: 'ch-s' }).expect(201);
      await add(w, w.offers[1].id, { cardholder_token: 'ch-s2', segment: 'anything' }).expect(201);
    });
  });

  describe('409 max_active_offers', () => {
    it('refuses the add beyond the program maximum; a re-add of a held offer still answers already_added', async () => {
      const w = await createWorld(api, {
        program: { max_active_offers: 2 },
        merchants: [{}],
        offers: [{}, {}, {}],
      });
      const [a, b, c] = w.offers.map((o) => o.id);
      await add(w, a, { cardholder_token: 'ch-cap' }).expect(201);
      await add(w, b, { cardholder_token: 'ch-cap' }).expect(201);
      const res = await add(w, c, { cardholder_token: 'ch-cap' }).expect(409);
      expect(res.body.error).toBe('max_active_offers');
      await add(w, b, { cardholder_token: 'ch-cap' }).expect(200);
      // Another cardholder is not affected.
      await add(w, c, { cardholder_token: 'ch-cap-other' }).expect(201);
    });

    it('counts only active enrollments in offers not yet expired', async () => {
      const w = await createWorld(api, {
        program: { max_active_offers: 2 },
        merchants: [{}],
        offers: [{}, {}, {}, {}],
      });
      const [a, b, c, d] = w.offers.map((o) => o.id);
      await add(w, a, { cardholder_token: 'ch-cnt' }).expect(201);
      await add(w, b, { cardholder_token: 'ch-cnt' }).expect(201);
      expect((await add(w, c, { cardholder_token: 'ch-cnt' }).expect(409)).body.error).toBe(
        'max_active_offers',
      );

      // Offer a expires: its enrollment stops counting.
      await patchOffer(a, { starts_at: iso(-3 * DAY), expires_at: iso(-1_000) });
      await add(w, c, { cardholder_token: 'ch-cnt' }).expect(201);
      expect((await add(w, d, { cardholder_token: 'ch-cnt' }).expect(409)).body.error).toBe(
        'max_active_offers',
      );

      // Enrollment in b redeemed to its limit: no longer active.
      await db.query(
        `UPDATE cardholder_offer SET status = 'redeemed', redemption_count = 1 WHERE institution_id = $1 AND cardholder_token = 'ch-cnt' AND offer_id = $2`,
        [w.institution.id, b],
      );
      await add(w, d, { cardholder_token: 'ch-cnt' }).expect(201);
    });

    it('counts per institution: the same token elsewhere is another cardholder', async () => {
      const a = await createWorld(api, {
        program: { max_active_offers: 1 },
        merchants: [{}],
        offers: [{}, {}],
      });
      const b = await createWorld(api, {
        program: { max_active_offers: 1 },
        merchants: [{}],
        offers: [{}],
      });
      await add(a, a.offers[0].id, { cardholder_token: 'ch-iso' }).expect(201);
      await add(b, b.offers[0].id, { cardholder_token: 'ch-iso' }).expect(201);
      expect(
        (await add(a, a.offers[1].id, { cardholder_token: 'ch-iso' }).expect(409)).body.error,
      ).toBe('max_active_offers');
    });
  });

  describe('under concurrency', () => {
    it('20 concurrent adds of 20 different offers for a cardholder holding max−1: one 201, nineteen 409 max_active_offers', async () => {
      const max = 5;
      const w = await createWorld(api, {
        program: { max_active_offers: max },
        merchants: [{}],
        offers: Array.from({ length: max - 1 + 20 }, () => ({})),
      });
      const held = w.offers.slice(0, max - 1).map((o) => o.id);
      const contested = w.offers.slice(max - 1).map((o) => o.id);
      for (const id of held) await add(w, id, { cardholder_token: 'ch-race' }).expect(201);

      const results = await Promise.all(
        contested.map((id) => add(w, id, { cardholder_token: 'ch-race' })),
      );
      const statuses = results.map((r) => `${r.status} ${r.body.status ?? r.body.error}`).sort();
      expect(statuses).toEqual(['201 added', ...Array(19).fill('409 max_active_offers')]);
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM cardholder_offer WHERE institution_id = $1 AND cardholder_token = 'ch-race'`,
        [w.institution.id],
      );
      expect(n).toBe(max);
    });

    it('20 concurrent adds of the same offer: one 201, nineteen 200 already_added, all with the same id', async () => {
      const w = await createWorld(api, { merchants: [{}], offers: [{}] });
      const results = await Promise.all(
        Array.from({ length: 20 }, () => add(w, w.offers[0].id, { cardholder_token: 'ch-same' })),
      );
      expect(results.map((r) => `${r.status} ${r.body.status}`).sort()).toEqual([
        ...Array(19).fill('200 already_added'),
        '201 added',
      ]);
      expect(new Set(results.map((r) => r.body.cardholder_offer_id)).size).toBe(1);
    });

    it('waits on the per-cardholder lock at most 5 s, then 503 enrollment_busy with Retry-After', async () => {
      const w = await createWorld(api, { merchants: [{}], offers: [{}] });
      const holder = db.createQueryRunner();
      await holder.connect();
      try {
        // The lock an add takes for this cardholder, held elsewhere (as a stuck add would).
        await holder.query(
          `SELECT pg_advisory_lock(hashtextextended($1::text || ':' || $2::text, 0))`,
          [w.institution.id, 'ch-busy'],
        );
        const started = Date.now();
        const res = await add(w, w.offers[0].id, { cardholder_token: 'ch-busy' }).expect(503);
        expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
        expect(res.body.error).toBe('enrollment_busy');
        expect(res.headers['retry-after']).toBe('1');
        // Another cardholder is not held up meanwhile.
        await add(w, w.offers[0].id, { cardholder_token: 'ch-free' }).expect(201);
      } finally {
        await holder.query(`SELECT pg_advisory_unlock_all()`);
        await holder.release();
      }
      await add(w, w.offers[0].id, { cardholder_token: 'ch-busy' }).expect(201);
    });

    it('adds for different cardholders do not block each other', async () => {
      const w = await createWorld(api, {
        program: { max_active_offers: 1 },
        merchants: [{}],
        offers: [{}],
      });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          add(w, w.offers[0].id, { cardholder_token: `ch-many-${i}` }),
        ),
      );
      expect(results.every((r) => r.status === 201)).toBe(true);
    });
  });

  describe('validation and PII', () => {
    let w: World;
    beforeAll(async () => {
      w = await createWorld(api, { merchants: [{}], offers: [{}] });
    });

    it.each([
      ['no cardholder_token', {}, 'cardholder_token'],
      ['an empty cardholder_token', { cardholder_token: '' }, 'cardholder_token'],
      ['a numeric cardholder_token', { cardholder_token: 42 }, 'cardholder_token'],
      [
        'a control character in card_token',
        { cardholder_token: 'ch-v', card_token: 'a\u0000b' },
        'card_token',
      ],
      [
        'a segment over 64 characters',
        { cardholder_token: 'ch-v', segment: 's'.repeat(65) },
        'segment',
      ],
      ['an unknown field', { cardholder_token: 'ch-v', institution: 'x' }, 'institution'],
    ])('400 validation_failed for %s', async (_, body, field) => {
      const res = await add(w, w.offers[0].id, body).expect(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it.each([
      [
        'an e-mail as cardholder_token',
        { cardholder_token: 'someone@bank.example' },
        'cardholder_token',
      ],
      [
        'a card number as cardholder_token',
        { cardholder_token: '4111111111111111' },
        'cardholder_token',
      ],
      [
        'a card number as card_token',
        { cardholder_token: 'ch-p', card_token: '5555-5555-5555-4444' },
        'card_token',
      ],
    ])('400 pii_rejected for %s, and nothing stored', async (_, body, field) => {
      const res = await add(w, w.offers[0].id, body).expect(400);
      expect(res.body).toMatchObject({ error: 'pii_rejected', details: [{ field }] });
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM cardholder_offer WHERE offer_id = $1`,
        [w.offers[0].id],
      );
      expect(n).toBe(0);
    });
  });
});

describe('funnel events', () => {
  let api: TestApi;
  let db: DataSource;
  let recorder: EngagementRecorder;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    recorder = api.app.get(EngagementRecorder);
  });
  afterAll(() => api.close());

  const events = async (w: World) => {
    await recorder.flush();
    return (await db.query(
      `SELECT kind, cardholder_token, offer_id FROM engagement_event WHERE institution_id = $1 ORDER BY id`,
      [w.institution.id],
    )) as { kind: string; cardholder_token: string; offer_id: string | null }[];
  };

  it('a feed call records one widget view with the cardholder and one impression per offer returned', async () => {
    const w = await createWorld(api, {
      program: { widget_feed_limit: 2 },
      merchants: [{}],
      offers: [{ priority: 3 }, { priority: 2 }, { priority: 1 }],
    });
    await api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: 'ch-f' })
      .set('Authorization', w.auth)
      .expect(200);
    expect(await events(w)).toEqual([
      { kind: 'widget_view', cardholder_token: 'ch-f', offer_id: null },
      { kind: 'impression', cardholder_token: 'ch-f', offer_id: w.offers[0].id },
      { kind: 'impression', cardholder_token: 'ch-f', offer_id: w.offers[1].id },
    ]);
  });

  it('an empty feed still records its widget view; a refused request records nothing', async () => {
    const w = await createWorld(api);
    await api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: 'ch-e' })
      .set('Authorization', w.auth)
      .expect(200);
    await api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: 'ch-e', limit: 0 })
      .set('Authorization', w.auth)
      .expect(400);
    expect(await events(w)).toEqual([
      { kind: 'widget_view', cardholder_token: 'ch-e', offer_id: null },
    ]);
  });

  it('an add records one add success; already_added and refusals record none', async () => {
    const w = await createWorld(api, {
      program: { max_active_offers: 1 },
      merchants: [{}],
      offers: [{}, {}, { segments: ['vip'] }],
    });
    const add = (offer: string, body: Record<string, unknown> = {}) =>
      api.http
        .post(`/api/v1/offers/${offer}/add`)
        .set('Authorization', w.auth)
        .send({ cardholder_token: 'ch-a', ...body });
    await add(w.offers[0].id).expect(201);
    await add(w.offers[0].id).expect(200);
    await add(w.offers[1].id).expect(409);
    await add(w.offers[2].id).expect(403);
    expect(await events(w)).toEqual([
      { kind: 'add_success', cardholder_token: 'ch-a', offer_id: w.offers[0].id },
    ]);
  });

  it('buffers: nothing is written until the next flush, then one multi-row write', async () => {
    const w = await createWorld(api, { merchants: [{}], offers: [{}, {}] });
    await recorder.flush();
    const before = recorder.pending;
    await api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: 'ch-buf' })
      .set('Authorization', w.auth)
      .expect(200);
    expect(recorder.pending).toBe(before + 3);
    expect((await events(w)).map((e) => e.kind)).toEqual([
      'widget_view',
      'impression',
      'impression',
    ]);
    expect(recorder.pending).toBe(0);
  });

  it('the timer flushes on its own within a few hundred milliseconds', async () => {
    const w = await createWorld(api);
    await api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: 'ch-t' })
      .set('Authorization', w.auth)
      .expect(200);
    const n = await eventually(
      async () =>
        (
          await db.query(
            `SELECT count(*)::int AS n FROM engagement_event WHERE institution_id = $1`,
            [w.institution.id],
          )
        )[0].n as number,
      'the timer to flush',
      2_000,
    );
    expect(n).toBe(1);
  });

  it('events buffered at shutdown are written', async () => {
    const other = await startApi();
    const w = await createWorld(other);
    const token = uniq('ch-shutdown-');
    await other.http
      .get('/api/v1/offers')
      .query({ cardholder_token: token })
      .set('Authorization', w.auth)
      .expect(200);
    await other.close();
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM engagement_event WHERE cardholder_token = $1`,
      [token],
    );
    expect(n).toBe(1);
  });
});
