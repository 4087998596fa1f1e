import { DataSource } from 'typeorm';
import { HoldoutKeys, recordActivitySql } from '@app/core';
import { DAY_MS, inHoldout } from '@app/domain';
import { createWorld, portalLogin, startApi, TestApi, uniq, World } from '@app/testing';

/**
 * The lift report (docs/lift.md) on a population built row by row, every figure checked against
 * the hand calculation of docs/lift.md's worked example.
 */
describe('GET /api/v1/reporting/offers/{id}/lift', () => {
  let api: TestApi;
  let db: DataSource;
  let keys: HoldoutKeys;
  const op = () => ({ Authorization: `Bearer ${api.operatorToken}` });

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    keys = api.app.get(HoldoutKeys, { strict: false });
  });
  afterAll(() => api.close());

  const start = Date.now() - 10 * DAY_MS;
  const at = (dayOffset: number) => new Date(start + dayOffset * DAY_MS);
  const lift = (w: World, offerId: string) =>
    api.http.get(`/api/v1/reporting/offers/${offerId}/lift`).set('Authorization', w.auth);

  /** `n` tokens of each group of the offer at `bps`, by the documented rule. */
  const pick = (w: World, offerId: string, bps: number, n: number) => {
    const key = keys.of(w.institution.id);
    const held: string[] = [];
    const exposed: string[] = [];
    for (let i = 0; held.length < n || exposed.length < n; i++) {
      const t = uniq(`lift-${i}-`);
      const list = inHoldout(key, offerId, t, bps) ? held : exposed;
      if (list.length < n) list.push(t);
    }
    return { held, exposed };
  };

  const insert = (
    w: World,
    rows: {
      token: string;
      merchant: string;
      amount: number;
      at: Date;
      kind?: string;
      ref?: string;
      original?: string;
      currency?: string | null;
    }[],
  ) =>
    // Recorded in cardholder_activity as the transaction store records its inserts.
    db.query(
      `WITH ins AS (
         INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, merchant_id, amount, currency,
                                  transacted_at, source, kind, original_transaction_ref, status)
         SELECT $1, r.ref, r.token, r.merchant, r.amount, r.currency, r.at, 'api', r.kind, r.original, 'unmatched'
           FROM jsonb_to_recordset($2::jsonb) AS r(ref text, token text, merchant uuid, amount numeric, currency text,
                                                   at timestamptz, kind text, original text)
         RETURNING institution_id, cardholder_token, transacted_at, kind)
       ${recordActivitySql('ins')}`,
      [
        w.institution.id,
        JSON.stringify(
          rows.map((r) => ({
            ref: r.ref ?? uniq('tx-'),
            token: r.token,
            merchant: r.merchant,
            amount: r.amount,
            currency: r.currency === undefined ? 'USD' : r.currency,
            at: r.at.toISOString(),
            kind: r.kind ?? 'purchase',
            original: r.original ?? null,
          })),
        ),
      ],
    );

  it('equals the hand calculation on a built population (docs/lift.md, worked example)', async () => {
    const w = await createWorld(api, {
      merchants: [{}, {}],
      offers: [
        {
          holdout_percent: 50,
          starts_at: at(0).toISOString(),
          expires_at: at(30).toISOString(),
          cashback_amount: 2,
        },
      ],
    });
    const offer = w.offers[0].id;
    const [M, O] = w.merchants.map((m) => m.id);
    const { held: H, exposed: E } = pick(w, offer, 5000, 5);

    const [authRef, clearRef, refundedRef, fullRef] = [
      uniq('a-'),
      uniq('c-'),
      uniq('p-'),
      uniq('p-'),
    ];
    await insert(w, [
      // E1: a card chain (authorization 30 → clearing 30; a second clearing of it does not count),
      // and a purchase of 20 with a refund of 5: 45.
      { token: E[0], merchant: M, amount: 30, at: at(1), kind: 'authorization', ref: authRef },
      {
        token: E[0],
        merchant: M,
        amount: 30,
        at: at(2),
        kind: 'clearing',
        ref: clearRef,
        original: authRef,
      },
      { token: E[0], merchant: M, amount: 30, at: at(3), kind: 'clearing', original: authRef },
      { token: E[0], merchant: M, amount: 20, at: at(2), ref: refundedRef },
      { token: E[0], merchant: M, amount: 5, at: at(4), kind: 'refund', original: refundedRef },
      // E2: 10, refunded in full: 0, not a buyer.
      { token: E[1], merchant: M, amount: 10, at: at(1), ref: fullRef },
      { token: E[1], merchant: M, amount: 10, at: at(3), kind: 'refund', original: fullRef },
      // E3: only another merchant.
      { token: E[2], merchant: O, amount: 7, at: at(1) },
      // E4: the merchant in the pre-period only: 12 there.
      { token: E[3], merchant: M, amount: 12, at: at(-30) },
      // E5: 25.50 in another currency does not count; 4.50 without a currency does.
      { token: E[4], merchant: M, amount: 25.5, at: at(1), currency: 'EUR' },
      { token: E[4], merchant: M, amount: 4.5, at: at(1), currency: null },
      // H1 20; H2 another merchant; H3 another merchant in the pre-period; H4 10, and 8 before.
      { token: H[0], merchant: M, amount: 20, at: at(5) },
      { token: H[1], merchant: O, amount: 9, at: at(5) },
      { token: H[2], merchant: O, amount: 3, at: at(-80) },
      { token: H[3], merchant: M, amount: 10, at: at(6) },
      { token: H[3], merchant: M, amount: 8, at: at(-5) },
      // Not eligible: purchases before the pre-period, or after now (the pre-period's month and
      // the window's hold purchases just outside: the report reads times, not months).
      { token: H[4], merchant: M, amount: 50, at: at(-120) },
      { token: H[4], merchant: O, amount: 5, at: new Date(at(-90).getTime() - 1000) },
      { token: E[4] + 'x', merchant: M, amount: 50, at: new Date(Date.now() + DAY_MS) },
      { token: E[4] + 'x', merchant: O, amount: 5, at: new Date(at(-90).getTime() - 1) },
    ]);
    await db.query(
      `INSERT INTO card_chain (institution_id, authorization_ref, state, authorization_amount, clearing_ref, cleared_amount, cleared_at)
       VALUES ($1, $2, 'cleared', 30, $3, 30, $4)`,
      [w.institution.id, authRef, clearRef, at(2)],
    );
    // Rewards: one redemption standing (2.00 paid, 3.00 funded), one reversed (not counted).
    for (const [ref, status] of [
      [clearRef, 'pending'],
      [fullRef, 'reversed'],
    ]) {
      await db.query(
        `WITH e AS (
           INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, status)
           SELECT $1, $2, cardholder_token, 'active' FROM transaction WHERE institution_id = $1 AND transaction_ref = $3
           RETURNING id, cardholder_token)
         INSERT INTO redemption (institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency,
                                 purchase_amount, cashback_amount, merchant_funded_amount, service_revenue_amount,
                                 institution_payout_amount, status, created_at)
         SELECT $1, t.id, e.id, $2, e.cardholder_token, 'USD', 3000, 200, 300, 100, 200, $4, $5
           FROM e JOIN transaction t ON t.institution_id = $1 AND t.transaction_ref = $3`,
        [w.institution.id, offer, ref, status, at(3)],
      );
    }

    const res = await lift(w, offer).expect(200);
    expect(res.body).toEqual({
      offer_id: offer,
      institution_id: w.institution.id,
      currency: 'USD',
      as_of: expect.any(String),
      window: { from: at(0).toISOString(), to: res.body.as_of },
      pre_period: { from: at(-90).toISOString(), to: at(0).toISOString() },
      holdout_percent: 50,
      groups: {
        exposed: {
          cardholders: 5,
          buyers: 2,
          purchase_rate: 0.4,
          spend: 49.5,
          spend_per_cardholder: 9.9,
          pre_period: { purchase_rate: 0.2, spend_per_cardholder: 2.4 },
        },
        holdout: {
          cardholders: 4,
          buyers: 2,
          purchase_rate: 0.5,
          spend: 30,
          spend_per_cardholder: 7.5,
          pre_period: { purchase_rate: 0.25, spend_per_cardholder: 2 },
        },
      },
      lift: -0.2,
      rate_difference: { value: -0.1, ci_low: -0.549678, ci_high: 0.408761 },
      spend_difference: { value: 2.4, ci_low: -22.14, ci_high: 26.94 },
      incremental_spend: 12,
      rewards_paid: { institution_payout: 2, merchant_funded: 3 },
      return_on_spend: 4,
      method: expect.stringContaining('docs/lift.md'),
    });
    expect(Date.now() - Date.parse(res.body.as_of)).toBeLessThan(60_000);

    // Reused for up to 60 s: a new purchase does not show until then, and as_of says so.
    await insert(w, [{ token: H[1], merchant: M, amount: 99, at: at(7) }]);
    const again = await lift(w, offer).expect(200);
    expect(again.body).toEqual(res.body);

    // Operators asking for the institution get the same report.
    const admin = await api.http
      .get(`/admin/api/v1/offers/${offer}/lift`)
      .query({ institution_id: w.institution.id })
      .set(op())
      .expect(200);
    expect(admin.body).toEqual(res.body);
  });

  it('sums (institution, token) pairs over every institution for operators', async () => {
    const a = await createWorld(api, { merchants: [{}] });
    const b = await createWorld(api);
    const created = await api.http
      .post('/admin/api/v1/offers')
      .set(op())
      .send({
        merchant_id: a.merchants[0].id,
        institution_ids: [a.institution.id, b.institution.id],
        status: 'active',
        translations: { en: { title: 'Both' } },
        min_spend: 1,
        cashback_amount: 1,
        currency: 'USD',
        starts_at: at(0).toISOString(),
        expires_at: at(30).toISOString(),
        holdout_percent: 20,
      })
      .expect(201);
    const offer = created.body.id;
    // The same token at both institutions is two cardholders, each assigned by its own key.
    const token = uniq('both-');
    for (const w of [a, b])
      await insert(w, [{ token, merchant: a.merchants[0].id, amount: 10, at: at(1) }]);
    const all = await api.http.get(`/admin/api/v1/offers/${offer}/lift`).set(op()).expect(200);
    const groupOf = (w: World) =>
      inHoldout(keys.of(w.institution.id), offer, token, 2000) ? 'holdout' : 'exposed';
    const expected = { exposed: 0, holdout: 0 };
    expected[groupOf(a)]++;
    expected[groupOf(b)]++;
    expect(all.body.institution_id).toBeNull();
    expect(all.body.groups.exposed.cardholders).toBe(expected.exposed);
    expect(all.body.groups.holdout.cardholders).toBe(expected.holdout);
    expect(all.body.groups.exposed.spend + all.body.groups.holdout.spend).toBe(20);
    const one = await lift(b, offer).expect(200);
    expect(one.body.groups[groupOf(b)].cardholders).toBe(1);
    expect(one.body.groups[groupOf(b) === 'holdout' ? 'exposed' : 'holdout'].cardholders).toBe(0);
  });

  it('counts a cardholder by the times of its purchases, to the millisecond, at both ends', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ starts_at: at(0).toISOString() }],
    });
    const M = w.merchants[0].id;
    const preFrom = at(-90).getTime();
    const [atStart, beforeStart, beforeNow, afterNow, hold, refund] = [1, 2, 3, 4, 5, 6].map((i) =>
      uniq(`edge-${i}-`),
    );
    await insert(w, [
      { token: atStart, merchant: M, amount: 1, at: new Date(preFrom) },
      { token: beforeStart, merchant: M, amount: 1, at: new Date(preFrom - 1) },
      { token: beforeNow, merchant: M, amount: 1, at: new Date(Date.now() - 60_000) },
      { token: afterNow, merchant: M, amount: 1, at: new Date(Date.now() + 3_600_000) },
      // An authorization is only a hold, a refund no purchase: neither makes a cardholder eligible.
      { token: hold, merchant: M, amount: 1, at: at(1), kind: 'authorization' },
      { token: refund, merchant: M, amount: 1, at: at(1), kind: 'refund', original: uniq('x-') },
    ]);
    const res = await lift(w, w.offers[0].id).expect(200);
    expect(res.body.groups.exposed.cardholders).toBe(2);
    expect(res.body.groups.holdout.cardholders).toBe(0);
  });

  it('answers null where a figure is undefined, never NaN', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ starts_at: at(0).toISOString() }],
    });
    await insert(w, [{ token: uniq('solo-'), merchant: w.merchants[0].id, amount: 10, at: at(1) }]);
    const res = await lift(w, w.offers[0].id).expect(200);
    expect(res.body.holdout_percent).toBe(0);
    expect(res.body.groups.holdout).toEqual({
      cardholders: 0,
      buyers: 0,
      purchase_rate: null,
      spend: 0,
      spend_per_cardholder: null,
      pre_period: { purchase_rate: null, spend_per_cardholder: null },
    });
    expect(res.body).toMatchObject({
      lift: null,
      rate_difference: { value: null, ci_low: null, ci_high: null },
      spend_difference: { value: null, ci_low: null, ci_high: null },
      incremental_spend: null,
      return_on_spend: null,
    });
  });

  it("404 offer_not_found for another institution's offer; 403 without the reporting scope", async () => {
    const a = await createWorld(api, { merchants: [{}], offers: [{}] });
    const b = await createWorld(api, { scopes: ['offers'] });
    const c = await createWorld(api);
    expect((await lift(c, a.offers[0].id).expect(404)).body.error).toBe('offer_not_found');
    expect((await lift(b, a.offers[0].id).expect(403)).body.error).toBe('insufficient_scope');
    await api.http
      .get(`/admin/api/v1/offers/${a.offers[0].id}/lift`)
      .query({ institution_id: c.institution.id })
      .set(op())
      .expect(404);
  });

  describe('in the portal', () => {
    it('lists the live and past offers (not drafts, not those yet to start) and shows their lift', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [
          { holdout_percent: 10, starts_at: at(0).toISOString() },
          { status: 'draft' },
          { starts_at: at(20).toISOString(), expires_at: at(40).toISOString() },
          { status: 'paused' },
        ],
      });
      const { agent } = await portalLogin(api, w.member);
      const list = await agent.get('/portal/api/offers').expect(200);
      // Offers offered to every institution (other files' worlds) are listed too: keep this world's.
      const mine = w.offers.map((o) => o.id);
      const own = list.body.data.filter((o: { id: string }) => mine.includes(o.id));
      expect(own.map((o: { id: string }) => o.id)).toEqual([w.offers[3].id, w.offers[0].id]);
      expect(own[1]).toMatchObject({
        title: 'Test offer',
        status: 'active',
        live: true,
        holdout_percent: 10,
        currency: 'USD',
      });
      expect(own[0]).toMatchObject({ status: 'paused', live: false });
      const view = await agent.get(`/portal/api/offers/${w.offers[0].id}/lift`).expect(200);
      expect(view.body).toMatchObject({ offer_id: w.offers[0].id, holdout_percent: 10 });
      const other = await createWorld(api, { merchants: [{}], offers: [{}] });
      await agent.get(`/portal/api/offers/${other.offers[0].id}/lift`).expect(404);
    });

    it('reveals the holdout key once, to an admin, recorded in the security activity', async () => {
      const w = await createWorld(api);
      const member = await portalLogin(api, w.member);
      await member.agent
        .post('/portal/api/holdout-key/reveal')
        .set('X-CSRF-Token', member.csrf)
        .expect(403);
      const admin = await portalLogin(api, w.admin);
      expect((await admin.agent.get('/portal/api/holdout-key').expect(200)).body).toEqual({
        revealed: false,
        revealed_at: null,
        revealed_by: null,
      });
      const first = await admin.agent
        .post('/portal/api/holdout-key/reveal')
        .set('X-CSRF-Token', admin.csrf)
        .expect(200);
      expect(first.body.key_hex).toBe(keys.of(w.institution.id).toString('hex'));
      const again = await admin.agent
        .post('/portal/api/holdout-key/reveal')
        .set('X-CSRF-Token', admin.csrf)
        .expect(409);
      expect(again.body.error).toBe('holdout_key_revealed');
      expect(JSON.stringify(again.body)).not.toContain(first.body.key_hex);
      expect((await admin.agent.get('/portal/api/holdout-key').expect(200)).body).toMatchObject({
        revealed: true,
        revealed_by: w.admin.email,
      });
      const activity = await admin.agent.get('/portal/api/security-activity').expect(200);
      const reveals = activity.body.data.filter(
        (e: { type: string }) => e.type === 'holdout_key.revealed',
      );
      expect(reveals).toHaveLength(1);
      expect(JSON.stringify(activity.body)).not.toContain(first.body.key_hex);
    });
  });
});
