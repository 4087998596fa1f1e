import { DataSource } from 'typeorm';
import { clockPast, createWorld, DAY, startApi, TestApi, uniq, World } from '@app/testing';

const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

describe('GET /api/v1/offers (feed)', () => {
  let api: TestApi;
  let db: DataSource;
  const op = () => ({ Authorization: `Bearer ${api.operatorToken}` });

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  const feed = (w: World, query: Record<string, string | number> = {}) =>
    api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: 'ch-feed', ...query })
      .set('Authorization', w.auth);
  const ids = (res: { body: { offers: { id: string }[] } }) => res.body.offers.map((o) => o.id);
  const patchOffer = (id: string, body: Record<string, unknown>) =>
    api.http.patch(`/admin/api/v1/offers/${id}`).set(op()).send(body).expect(200);
  const enroll = (w: World, offerId: string, token: string, body: Record<string, unknown> = {}) =>
    api.http
      .post(`/api/v1/offers/${offerId}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: token, ...body });

  it('returns the published fields of each offer, plus reward_type, cashback_percent, merchant_name and qualification', async () => {
    const w = await createWorld(api, {
      merchants: [{ name: 'Green Grocer' }],
      offers: [
        {
          translations: { en: { title: '5 back', description: 'Spend 20.' } },
          min_spend: 20,
          cashback_amount: 5,
          merchant_fee_amount: 1,
        },
      ],
    });
    const res = await feed(w).expect(200);
    expect(res.body).toEqual({
      offers: [
        {
          id: w.offers[0].id,
          title: '5 back',
          description: 'Spend 20.',
          merchant_id: w.merchants[0].id,
          merchant_name: 'Green Grocer',
          min_spend: 20,
          cashback_amount: 5,
          currency: 'USD',
          starts_at: w.offers[0].starts_at,
          expires_at: w.offers[0].expires_at,
          added: false,
          reward_type: 'fixed',
          cashback_percent: null,
          qualification: null,
        },
      ],
      total: 1,
      personalized: false,
    });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('percent offers carry reward_type percent, cashback_percent and their cap as cashback_amount', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [
        { reward_type: 'percent', cashback_percent: 12.5, cashback_amount: 30, min_spend: 0 },
      ],
    });
    const [o] = (await feed(w).expect(200)).body.offers;
    expect(o).toMatchObject({
      reward_type: 'percent',
      cashback_percent: 12.5,
      cashback_amount: 30,
      min_spend: 0,
    });
  });

  it('speaks major units of the offer currency (JPY has no minor unit, KWD three)', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [
        { currency: 'JPY', min_spend: 3000, cashback_amount: 500, priority: 2 },
        { currency: 'KWD', min_spend: 1.5, cashback_amount: 0.125, priority: 1 },
      ],
    });
    const res = await feed(w).expect(200);
    expect(
      res.body.offers.map((o: { currency: string; min_spend: number; cashback_amount: number }) => [
        o.currency,
        o.min_spend,
        o.cashback_amount,
      ]),
    ).toEqual([
      ['JPY', 3000, 500],
      ['KWD', 1.5, 0.125],
    ]);
  });

  describe('filters', () => {
    it('shows only offers active now: not drafts, paused, ended, not-yet-started or expired ones', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [
          { priority: 9 },
          { status: 'draft' },
          { status: 'paused' },
          { status: 'ended' },
          { starts_at: iso(DAY), expires_at: iso(2 * DAY) },
          { starts_at: iso(-3 * DAY), expires_at: iso(-DAY) },
          // Far enough ahead to still be active when a loaded machine answers the first read.
          { starts_at: iso(-DAY), expires_at: iso(6_000) },
        ],
      });
      const res = await feed(w).expect(200);
      expect(ids(res)).toEqual([w.offers[0].id, w.offers[6].id]);
      expect(res.body.total).toBe(2);
      // The last one expires while the catalogue is cached: time is applied per request.
      const [{ expires_at }] = await api.app
        .get(DataSource)
        .query(`SELECT expires_at FROM offer WHERE id = $1`, [w.offers[6].id]);
      await clockPast(expires_at, 'the offer expiry');
      expect(ids(await feed(w).expect(200))).toEqual([w.offers[0].id]);
    });

    it('offers targeted at another institution are invisible; untargeted offers reach every institution', async () => {
      const a = await createWorld(api, { merchants: [{}], offers: [{}] });
      const b = await createWorld(api, { merchants: [{}], offers: [{}] });
      // A segment only this test uses keeps the untargeted offer out of other tests' feeds.
      const segment = uniq('everyone-');
      const shared = (
        await api.http
          .post('/admin/api/v1/offers')
          .set(op())
          .send({ ...offerBodyFor(a.merchants[0].id), segments: [segment], priority: 5 })
          .expect(201)
      ).body;
      try {
        expect(ids(await feed(a, { segment }).expect(200))).toEqual([shared.id, a.offers[0].id]);
        expect(ids(await feed(b, { segment }).expect(200))).toEqual([shared.id, b.offers[0].id]);
        expect(ids(await feed(b).expect(200))).toEqual([b.offers[0].id]);
      } finally {
        await patchOffer(shared.id, { status: 'ended' });
      }
      expect(ids(await feed(a, { segment }).expect(200))).toEqual([a.offers[0].id]);
    });

    it('re-targeting an offer takes effect on the next request', async () => {
      const a = await createWorld(api, { merchants: [{}], offers: [{}] });
      const b = await createWorld(api, { merchants: [{}], offers: [{}] });
      expect(ids(await feed(b).expect(200))).toEqual([b.offers[0].id]);
      await patchOffer(a.offers[0].id, {
        institution_ids: [a.institution.id, b.institution.id],
        priority: 1,
      });
      expect(ids(await feed(b).expect(200))).toEqual([a.offers[0].id, b.offers[0].id]);
      await patchOffer(a.offers[0].id, { institution_ids: [a.institution.id] });
      expect(ids(await feed(b).expect(200))).toEqual([b.offers[0].id]);
    });

    it('hides an offer without budget for one more redemption (cashback + merchant fee)', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [
          { budget_total: 6, cashback_amount: 5, merchant_fee_amount: 1, priority: 3 }, // exactly one more fits
          { budget_total: 5.99, cashback_amount: 5, merchant_fee_amount: 1, priority: 2 }, // does not
          { budget_total: null, priority: 1 }, // unlimited
        ],
      });
      expect(ids(await feed(w).expect(200))).toEqual([w.offers[0].id, w.offers[2].id]);
    });

    it('an offer whose budget runs out (as matching spends it) disappears at once, and comes back when refunded', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [{ budget_total: 100, cashback_amount: 5, priority: 2 }, { priority: 1 }],
      });
      const [limited, other] = w.offers.map((o) => o.id);
      expect(ids(await feed(w).expect(200))).toEqual([limited, other]);
      await db.query(`UPDATE offer_budget SET budget_used = 9000 WHERE offer_id = $1`, [limited]); // 10.00 left: still room
      expect(ids(await feed(w).expect(200))).toEqual([limited, other]);
      await db.query(`UPDATE offer_budget SET budget_used = 9600 WHERE offer_id = $1`, [limited]); // 4.00 left < 5
      expect(ids(await feed(w).expect(200))).toEqual([other]);
      await db.query(`UPDATE offer_budget SET budget_used = 9500 WHERE offer_id = $1`, [limited]); // a reversal: 5.00 left
      expect(ids(await feed(w).expect(200))).toEqual([limited, other]);
    });

    it('segment-limited offers appear only on a matching segment; unrestricted offers always', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [
          { segments: ['gold', 'platinum'], priority: 3 },
          { segments: ['silver'], priority: 2 },
          { priority: 1 },
        ],
      });
      const [gold, silver, open] = w.offers.map((o) => o.id);
      expect(ids(await feed(w).expect(200))).toEqual([open]);
      expect(ids(await feed(w, { segment: 'platinum' }).expect(200))).toEqual([gold, open]);
      expect(ids(await feed(w, { segment: 'silver' }).expect(200))).toEqual([silver, open]);
      expect(ids(await feed(w, { segment: 'GOLD' }).expect(200))).toEqual([open]);
      expect(ids(await feed(w, { segment: 'bronze' }).expect(200))).toEqual([open]);
    });

    it('hides offers the cardholder redeemed to the per-cardholder limit, for that cardholder only', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [
          { priority: 3 },
          { max_redemptions_per_cardholder: 2, priority: 2 },
          { priority: 1 },
        ],
      });
      const [once, twice, other] = w.offers.map((o) => o.id);
      for (const id of [once, twice, other]) await enroll(w, id, 'ch-redeemer').expect(201);
      await db.query(
        `UPDATE cardholder_offer SET redemption_count = 1, status = CASE WHEN offer_id = $2 THEN 'redeemed' ELSE 'active' END
          WHERE institution_id = $1 AND cardholder_token = 'ch-redeemer' AND offer_id IN ($2, $3)`,
        [w.institution.id, once, twice],
      );
      const mine = await feed(w, { cardholder_token: 'ch-redeemer' }).expect(200);
      expect(ids(mine)).toEqual([twice, other]);
      expect(mine.body.offers.every((o: { added: boolean }) => o.added)).toBe(true);
      expect(ids(await feed(w, { cardholder_token: 'ch-someone-else' }).expect(200))).toEqual([
        once,
        twice,
        other,
      ]);

      await db.query(
        `UPDATE cardholder_offer SET redemption_count = 2 WHERE institution_id = $1 AND cardholder_token = 'ch-redeemer' AND offer_id = $2`,
        [w.institution.id, twice],
      );
      expect(ids(await feed(w, { cardholder_token: 'ch-redeemer' }).expect(200))).toEqual([other]);
    });

    it('marks added per cardholder', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [{ priority: 2 }, { priority: 1 }],
      });
      await enroll(w, w.offers[1].id, 'ch-adder').expect(201);
      const mine = (await feed(w, { cardholder_token: 'ch-adder' }).expect(200)).body.offers;
      expect(mine.map((o: { added: boolean }) => o.added)).toEqual([false, true]);
      const theirs = (await feed(w, { cardholder_token: 'ch-other' }).expect(200)).body.offers;
      expect(theirs.map((o: { added: boolean }) => o.added)).toEqual([false, false]);
    });

    it('reflects an operator pausing or editing an offer on the next request', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [{ priority: 2 }, { priority: 1 }],
      });
      const [a, b] = w.offers.map((o) => o.id);
      expect(ids(await feed(w).expect(200))).toEqual([a, b]);
      await patchOffer(a, { status: 'paused' });
      expect(ids(await feed(w).expect(200))).toEqual([b]);
      await patchOffer(a, {
        status: 'active',
        translations: { en: { title: 'Renamed' } },
        priority: 0,
      });
      const res = await feed(w).expect(200);
      expect(ids(res)).toEqual([b, a]);
      expect(res.body.offers[1].title).toBe('Renamed');
    });
  });

  describe('sort orders', () => {
    const program = async (w: World, sort_order: string) =>
      api.http
        .patch(`/admin/api/v1/institutions/${w.institution.id}`)
        .set(op())
        .send({ program: { sort_order } })
        .expect(200);

    let w: World;
    beforeAll(async () => {
      w = await createWorld(api, {
        merchants: [{}],
        offers: [
          // 0: featured top (priority 5, newer)
          { priority: 5, starts_at: iso(-1 * DAY), expires_at: iso(20 * DAY), cashback_amount: 2 },
          // 1: priority 5, older
          { priority: 5, starts_at: iso(-4 * DAY), expires_at: iso(10 * DAY), cashback_amount: 7 },
          // 2: priority 0, newest of all
          { priority: 0, starts_at: iso(-1_000), expires_at: iso(30 * DAY), cashback_amount: 3 },
          // 3: priority 1, ends soonest
          { priority: 1, starts_at: iso(-5 * DAY), expires_at: iso(2 * DAY), cashback_amount: 9 },
        ],
      });
    });
    const o = (i: number) => w.offers[i].id;

    it('featured (the default): priority desc, then newest', async () => {
      expect(ids(await feed(w).expect(200))).toEqual([o(0), o(1), o(3), o(2)]);
    });

    it('ending_soon: expires_at ascending', async () => {
      await program(w, 'ending_soon');
      expect(ids(await feed(w).expect(200))).toEqual([o(3), o(1), o(0), o(2)]);
    });

    it('highest_cashback: cashback_amount descending', async () => {
      await program(w, 'highest_cashback');
      expect(ids(await feed(w).expect(200))).toEqual([o(3), o(1), o(2), o(0)]);
    });

    it('newest: starts_at descending', async () => {
      await program(w, 'newest');
      expect(ids(await feed(w).expect(200))).toEqual([o(2), o(0), o(1), o(3)]);
    });

    it('breaks ties by offer id, so the order is the same on every call', async () => {
      const starts = iso(-DAY);
      const t = await createWorld(api, {
        merchants: [{}],
        offers: Array.from({ length: 6 }, () => ({ priority: 1, starts_at: starts })),
      });
      const expected = t.offers.map((x) => x.id).sort();
      for (let i = 0; i < 3; i++) expect(ids(await feed(t).expect(200))).toEqual(expected);
    });
  });

  describe('limit', () => {
    let w: World;
    beforeAll(async () => {
      w = await createWorld(api, {
        program: { widget_feed_limit: 4 },
        merchants: [{}],
        offers: Array.from({ length: 6 }, (_, i) => ({ priority: 10 - i })),
      });
    });

    it('defaults to the widget limit; total counts every eligible offer', async () => {
      const res = await feed(w).expect(200);
      expect(ids(res)).toEqual(w.offers.slice(0, 4).map((o) => o.id));
      expect(res.body.total).toBe(6);
    });

    it('honours a smaller limit', async () => {
      const res = await feed(w, { limit: 2 }).expect(200);
      expect(ids(res)).toEqual(w.offers.slice(0, 2).map((o) => o.id));
      expect(res.body.total).toBe(6);
    });

    it('caps a larger limit at the widget limit', async () => {
      for (const limit of [5, 100]) {
        const res = await feed(w, { limit }).expect(200);
        expect(res.body.offers).toHaveLength(4);
        expect(res.body.total).toBe(6);
      }
    });

    it.each(['0', '101', '-1', '1.5', 'abc', ''])(
      'limit=%j → 400 validation_failed',
      async (limit) => {
        const res = await feed(w, { limit }).expect(400);
        expect(res.body).toMatchObject({
          error: 'validation_failed',
          details: expect.arrayContaining([expect.objectContaining({ field: 'limit' })]),
        });
      },
    );

    it('limit 1 and 100 are accepted', async () => {
      expect((await feed(w, { limit: 1 }).expect(200)).body.offers).toHaveLength(1);
      const wide = await createWorld(api, {
        program: { widget_feed_limit: 100 },
        merchants: [{}],
        offers: Array.from({ length: 3 }, () => ({})),
      });
      expect((await feed(wide, { limit: 100 }).expect(200)).body.offers).toHaveLength(3);
    });
  });

  describe('locale', () => {
    const translations = {
      en: { title: 'Five back', description: 'Spend 20.' },
      es: { title: 'Cinco de reembolso', description: 'Gasta 20.' },
      'pt-BR': { title: 'Cinco de volta', description: 'Gaste 20.' },
    };
    let w: World;
    beforeAll(async () => {
      w = await createWorld(api, {
        program: { supported_locales: ['es', 'en'] },
        merchants: [{}],
        offers: [
          { translations, priority: 2 },
          { translations: { en: { title: 'English only', description: 'EN' } }, priority: 1 },
        ],
      });
    });
    const titles = async (query: Record<string, string>) =>
      (await feed(w, query).expect(200)).body.offers.map((o: { title: string }) => o.title);

    it('uses the requested locale when the program supports it', async () => {
      expect(await titles({ locale: 'en' })).toEqual(['Five back', 'English only']);
      const res = await feed(w, { locale: 'es' }).expect(200);
      expect(res.body.offers[0]).toMatchObject({
        title: 'Cinco de reembolso',
        description: 'Gasta 20.',
      });
    });

    it("falls back to the program's first locale for a language the program does not offer, or none", async () => {
      expect(await titles({ locale: 'pt-BR' })).toEqual(['Cinco de reembolso', 'English only']);
      expect(await titles({})).toEqual(['Cinco de reembolso', 'English only']);
      expect(await titles({ locale: 'fr' })).toEqual(['Cinco de reembolso', 'English only']);
    });

    it('accepts tags in any case and regional variants of a language', async () => {
      expect((await titles({ locale: 'EN' }))[0]).toBe('Five back');
      expect((await titles({ locale: 'en-GB' }))[0]).toBe('Five back');
      expect((await titles({ locale: 'es-MX' }))[0]).toBe('Cinco de reembolso');
    });

    it("a missing translation falls back to the program's first locale", async () => {
      const p = await createWorld(api, {
        program: { supported_locales: ['pt-BR', 'es', 'en'] },
        merchants: [{}],
        offers: [{ translations: { 'pt-BR': translations['pt-BR'], en: translations.en } }],
      });
      const res = await feed(p, { locale: 'es' }).expect(200);
      expect(res.body.offers[0]).toMatchObject({
        title: 'Cinco de volta',
        description: 'Gaste 20.',
      });
    });

    it('rejects a malformed locale', async () => {
      const res = await feed(w, { locale: 'en_US!' }).expect(400);
      expect(res.body.details).toEqual([expect.objectContaining({ field: 'locale' })]);
    });
  });

  describe('validation and PII', () => {
    let w: World;
    beforeAll(async () => {
      w = await createWorld(api, { merchants: [{}], offers: [{}] });
    });

    it('400 validation_failed without cardholder_token', async () => {
      const res = await api.http.get('/api/v1/offers').set('Authorization', w.auth).expect(400);
      expect(res.body).toMatchObject({
        error: 'validation_failed',
        details: expect.arrayContaining([expect.objectContaining({ field: 'cardholder_token' })]),
      });
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
    });

    it.each([
      ['personalize', 'yes'],
      ['segment', 'x'.repeat(65)],
      ['unknown_param', '1'],
    ])('400 validation_failed for %s=%j', async (field, value) => {
      const res = await feed(w, { [field]: value }).expect(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it.each([
      ['an e-mail address', 'jane.doe@example.com'],
      ['a card number', '4111 1111 1111 1111'],
      ['a card number behind a prefix', 'chk_4000000000000002'],
    ])('400 pii_rejected for %s as cardholder_token', async (_, token) => {
      const res = await feed(w, { cardholder_token: token }).expect(400);
      expect(res.body).toMatchObject({
        error: 'pii_rejected',
        details: [{ field: 'cardholder_token', message: expect.any(String) }],
      });
      expect(JSON.stringify(res.body)).not.toContain(token);
    });
  });

  describe('institution isolation', () => {
    it('a cardholder token means a different cardholder in another institution: no shared offers, no shared enrollments', async () => {
      const a = await createWorld(api, { merchants: [{}], offers: [{}] });
      const b = await createWorld(api, { merchants: [{}], offers: [{}] });
      await enroll(a, a.offers[0].id, 'ch-shared-token').expect(201);
      // Make A's offer visible to B as well: B's cardholder with the same token is not enrolled.
      await patchOffer(a.offers[0].id, { institution_ids: [a.institution.id, b.institution.id] });
      const seenByB = (await feed(b, { cardholder_token: 'ch-shared-token' }).expect(200)).body
        .offers;
      expect(seenByB.find((o: { id: string }) => o.id === a.offers[0].id)).toMatchObject({
        added: false,
      });
      const seenByA = (await feed(a, { cardholder_token: 'ch-shared-token' }).expect(200)).body
        .offers;
      expect(seenByA.find((o: { id: string }) => o.id === a.offers[0].id)).toMatchObject({
        added: true,
      });
      expect(seenByA.map((o: { id: string }) => o.id)).not.toContain(b.offers[0].id);
    });
  });

  function offerBodyFor(merchantId: string): Record<string, unknown> {
    return {
      merchant_id: merchantId,
      status: 'active',
      translations: { en: { title: 'Everyone', description: 'Untargeted' } },
      min_spend: 10,
      cashback_amount: 2,
      currency: 'USD',
      starts_at: iso(-DAY),
      expires_at: iso(30 * DAY),
    };
  }
});
