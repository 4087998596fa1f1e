// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-audience-${process.pid}` });

import { apiAndWorker, createWorld, DAY, eventually, uniq, World } from '@app/testing';

/** Channels, activation windows and audiences: admin API, simulate, matching, feed and add. */
describe('offer channels, activation window and audience', () => {
  const ctx = apiAndWorker();

  async function world(offers: Record<string, unknown>[], program = {}): Promise<World> {
    return createWorld(ctx.api, {
      program,
      merchants: [{}],
      offers: offers.map((o) => ({
        min_spend: 20,
        cashback_amount: 5,
        starts_at: new Date(Date.now() - 400 * DAY).toISOString(),
        ...o,
      })),
    });
  }

  const add = (w: World, offerId: string, token: string) =>
    ctx.api.http
      .post(`/api/v1/offers/${offerId}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: token });

  const event = (w: World, token: string, over: Record<string, unknown> = {}) => ({
    cardholder_token: token,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: w.merchants[0].identifiers[0].value,
    amount: 25,
    transaction_ref: uniq('ref-'),
    transacted_at: new Date().toISOString(),
    ...over,
  });

  async function reasons(w: World, body: Record<string, unknown>) {
    const res = await ctx.api.http
      .post('/api/v1/transactions/simulate')
      .set('Authorization', w.auth)
      .send(body)
      .expect(200);
    return Object.fromEntries(
      res.body.evaluations.map((e: { offer_id: string; reasons: string[] }) => [
        e.offer_id,
        e.reasons,
      ]),
    );
  }

  const processed = (id: string) =>
    eventually(
      async () => {
        const [t] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
        return t && t.status !== 'received' ? (t.status as string) : null;
      },
      `transaction ${id} processed`,
      20_000,
    );

  async function post(w: World, body: Record<string, unknown>): Promise<string> {
    const res = await ctx.api.http
      .post('/api/v1/transactions')
      .set('Authorization', w.auth)
      .send(body);
    expect(res.status).toBe(202);
    return res.body.id as string;
  }

  async function feed(w: World, token: string) {
    const res = await ctx.api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: token })
      .set('Authorization', w.auth)
      .expect(200);
    return res.body as { offers: { id: string; added: boolean }[]; total: number };
  }

  /** Back-dates the cardholder's enrollment in the offer (its activation window then runs out). */
  const age = (offerId: string, token: string, days: number) =>
    ctx.db.query(
      `UPDATE cardholder_offer SET added_at = now() - $3 * interval '1 day'
        WHERE offer_id = $1 AND cardholder_token = $2 AND status <> 'expired'`,
      [offerId, token, days],
    );

  describe('admin API', () => {
    it('the new rules round-trip; audience all stores nothing', async () => {
      const w = await world([
        {
          qualification: {
            channels: ['online', 'in_store'],
            activation_days: 14,
            audience: 'lapsed',
            lookback_days: 90,
          },
        },
        { qualification: { audience: 'all' } },
      ]);
      expect(w.offers[0].qualification).toEqual({
        channels: ['in_store', 'online'],
        activation_days: 14,
        audience: 'lapsed',
        lookback_days: 90,
      });
      expect(w.offers[1].qualification).toBeNull();
    });

    it.each([
      [{ audience: 'new' }, 'lookback_days'],
      [{ lookback_days: 30 }, 'lookback_days'],
      [{ audience: 'all', lookback_days: 30 }, 'lookback_days'],
      [{ audience: 'new', lookback_days: 0 }, 'lookback_days'],
      [{ audience: 'new', lookback_days: 366 }, 'lookback_days'],
      [{ audience: 'someone' }, 'audience'],
      [{ channels: ['phone'] }, 'channels'],
      [{ channels: [] }, 'channels'],
      [{ activation_days: 0 }, 'activation_days'],
    ])('rejects %j (400 naming %s)', async (qualification, field) => {
      const w = await createWorld(ctx.api, { merchants: [{}] });
      const res = await ctx.api.http
        .post('/admin/api/v1/offers')
        .set('Authorization', ctx.op())
        .send({
          merchant_id: w.merchants[0].id,
          status: 'active',
          translations: { en: { title: 'Rule' } },
          min_spend: 20,
          cashback_amount: 5,
          currency: 'USD',
          starts_at: new Date(Date.now() - DAY).toISOString(),
          expires_at: new Date(Date.now() + DAY).toISOString(),
          qualification,
        });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    });
  });

  describe('channels', () => {
    it('simulate: channel_mismatch for another channel or none; an unrestricted offer ignores it', async () => {
      const w = await world([{ qualification: { channels: ['online'] } }]);
      const token = `chk_${uniq()}`;
      await add(w, w.offers[0].id, token).expect(201);
      const id = w.offers[0].id;
      expect((await reasons(w, event(w, token, { channel: 'online' })))[id]).toEqual([]);
      expect((await reasons(w, event(w, token, { channel: 'in_store' })))[id]).toEqual([
        'channel_mismatch',
      ]);
      expect((await reasons(w, event(w, token)))[id]).toEqual(['channel_mismatch']);
    });

    it('matching: only the restricted channel matches; a transaction without one never does', async () => {
      const w = await world([
        { qualification: { channels: ['in_store'] }, max_redemptions_per_cardholder: 10 },
      ]);
      for (const [over, expected] of [
        [{ channel: 'in_store' }, 'matched'],
        [{ channel: 'online' }, 'unmatched'],
        [{}, 'unmatched'],
      ] as [Record<string, unknown>, string][]) {
        const token = `chk_${uniq()}`;
        await add(w, w.offers[0].id, token).expect(201);
        expect([over, await processed(await post(w, event(w, token, over)))]).toEqual([
          over,
          expected,
        ]);
      }
      const bad = await ctx.api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send(event(w, 'chk_x', { channel: 'phone' }));
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('channel');
    });
  });

  describe('activation_days', () => {
    it('an expired enrollment: not added in the feed, activation_expired, unmatched; re-add → 201 with a new id', async () => {
      const w = await world([{ qualification: { activation_days: 7 } }]);
      const offerId = w.offers[0].id;
      const token = `chk_${uniq()}`;
      const first = (await add(w, offerId, token).expect(201)).body;
      expect(first.status).toBe('added');
      expect((await feed(w, token)).offers.find((o) => o.id === offerId)?.added).toBe(true);
      expect((await add(w, offerId, token).expect(200)).body.status).toBe('already_added');

      await age(offerId, token, 8);
      expect((await feed(w, token)).offers.find((o) => o.id === offerId)?.added).toBe(false);
      expect((await reasons(w, event(w, token)))[offerId]).toEqual(['activation_expired']);
      expect(await processed(await post(w, event(w, token)))).toBe('unmatched');

      const again = (await add(w, offerId, token).expect(201)).body;
      expect(again.status).toBe('added');
      expect(again.cardholder_offer_id).not.toBe(first.cardholder_offer_id);
      expect((await feed(w, token)).offers.find((o) => o.id === offerId)?.added).toBe(true);
      const rows = await ctx.db.query(
        `SELECT id, status FROM cardholder_offer WHERE offer_id = $1 AND cardholder_token = $2 ORDER BY added_at`,
        [offerId, token],
      );
      expect(rows).toEqual([
        { id: first.cardholder_offer_id, status: 'expired' },
        { id: again.cardholder_offer_id, status: 'active' },
      ]);
      expect(await processed(await post(w, event(w, token)))).toBe('matched');
    });

    it('an expired enrollment does not count toward max_active_offers', async () => {
      const w = await world([{ qualification: { activation_days: 3 } }, {}], {
        max_active_offers: 1,
      });
      const token = `chk_${uniq()}`;
      await add(w, w.offers[0].id, token).expect(201);
      expect(JSON.stringify((await add(w, w.offers[1].id, token)).body)).toContain(
        'max_active_offers',
      );
      await age(w.offers[0].id, token, 3);
      await add(w, w.offers[1].id, token).expect(201);
    });
  });

  describe('audience', () => {
    async function history(w: World, token: string, daysAgo: number): Promise<void> {
      const id = await post(
        w,
        event(w, token, { transacted_at: new Date(Date.now() - daysAgo * DAY).toISOString() }),
      );
      await processed(id);
    }

    it('new (90 days) and lapsed (30 days): matching, simulate and feed agree', async () => {
      const w = await world([
        { qualification: { audience: 'new', lookback_days: 90 } },
        { qualification: { audience: 'lapsed', lookback_days: 30 } },
      ]);
      const [fresh, lapsed, regular] = [uniq('chk_n'), uniq('chk_l'), uniq('chk_r')];
      await history(w, lapsed, 60);
      await history(w, regular, 5);
      const [nw, lp] = w.offers.map((o) => o.id);

      const shown = async (token: string) =>
        (await feed(w, token)).offers.map((o) => o.id).filter((id) => id === nw || id === lp);
      expect(await shown(fresh)).toEqual([nw]);
      expect(await shown(lapsed)).toEqual([lp]);
      expect(await shown(regular)).toEqual([]);

      for (const t of [fresh, lapsed, regular]) for (const o of [nw, lp]) await add(w, o, t);
      const r = async (t: string) => reasons(w, event(w, t));
      expect((await r(fresh))[lp]).toEqual(['audience_mismatch']);
      expect((await r(fresh))[nw]).toEqual([]);
      expect((await r(lapsed))[nw]).toEqual(['audience_mismatch']);
      expect((await r(lapsed))[lp]).toEqual([]);
      expect((await r(regular))[nw]).toEqual(['audience_mismatch']);
      expect((await r(regular))[lp]).toEqual(['audience_mismatch']);

      const won = async (t: string) => {
        const id = await post(w, event(w, t));
        expect(await processed(id)).toBe('matched');
        const [{ offer_id }] = await ctx.db.query(
          `SELECT offer_id FROM redemption WHERE transaction_id = $1`,
          [id],
        );
        return offer_id as string;
      };
      expect(await won(fresh)).toBe(nw);
      expect(await won(lapsed)).toBe(lp);
      expect(await processed(await post(w, event(w, regular)))).toBe('unmatched');
    });

    it('purchases of one batch count for the later ones (set-based, in transacted_at order)', async () => {
      const w = await world([
        {
          qualification: { audience: 'new', lookback_days: 30 },
          max_redemptions_per_cardholder: 5,
        },
      ]);
      const token = uniq('chk_b');
      await add(w, w.offers[0].id, token).expect(201);
      const t = Date.now();
      const res = await ctx.api.http
        .post('/api/v1/transactions/batch')
        .set('Authorization', w.auth)
        .send({
          transactions: [
            event(w, token, { transacted_at: new Date(t + 60_000).toISOString() }),
            event(w, token, { transacted_at: new Date(t + 1_000).toISOString() }),
          ],
        })
        .expect(202);
      expect(res.body.accepted).toBe(2);
      const rows = await eventually(async () => {
        const r: { transacted_at: Date; status: string }[] = await ctx.db.query(
          `SELECT transacted_at, status FROM transaction WHERE cardholder_token = $1 ORDER BY transacted_at`,
          [token],
        );
        return r.every((x) => x.status !== 'received') ? r : null;
      }, 'batch processed');
      expect(rows.map((r) => r.status)).toEqual(['matched', 'unmatched']);
    });
  });

  describe('history batches', () => {
    const batch = (w: World, transactions: Record<string, unknown>[], history: unknown = true) =>
      ctx.api.http
        .post('/api/v1/transactions/batch')
        .set('Authorization', w.auth)
        .send({ history, transactions });

    it('stored as past purchases, deduplicated, never matched or rewarded, effective once answered', async () => {
      const w = await world([
        { qualification: { audience: 'new', lookback_days: 90 } },
        { qualification: { audience: 'lapsed', lookback_days: 30 } },
        { min_spend: 1 },
      ]);
      const [nw, lp, plain] = w.offers.map((o) => o.id);
      const token = uniq('chk_h');
      for (const o of w.offers) await add(w, o.id, token).expect(201);
      // Past purchases, one of them after the add and qualifying for the plain offer.
      const items = [
        event(w, token, { transacted_at: new Date(Date.now() - 60 * DAY).toISOString() }),
        event(w, token, { transacted_at: new Date(Date.now() + 1000).toISOString() }),
      ];
      const res = await batch(w, items).expect(202);
      expect(res.body).toMatchObject({ received: 2, accepted: 2, duplicates: 0 });

      // Effective at once: the feed and simulate see the history.
      const shown = (await feed(w, token)).offers.map((o) => o.id);
      expect(shown).not.toContain(nw);
      expect(shown).toContain(lp);
      const r = await reasons(
        w,
        event(w, token, { transacted_at: new Date(Date.now() + 2000).toISOString() }),
      );
      expect(r[nw]).toEqual(['audience_mismatch']);

      const again = await batch(w, items).expect(202);
      expect(again.body).toMatchObject({ accepted: 0, duplicates: 2, duplicate_indexes: [0, 1] });
      const stored = await ctx.db.query(
        `SELECT status, history, merchant_id FROM transaction WHERE cardholder_token = $1 ORDER BY transacted_at`,
        [token],
      );
      expect(stored).toEqual([
        { status: 'unmatched', history: true, merchant_id: w.merchants[0].id },
        { status: 'unmatched', history: true, merchant_id: w.merchants[0].id },
      ]);
      // A live purchase is matched against that history; the history itself never was.
      const live = await post(
        w,
        event(w, token, { transacted_at: new Date(Date.now() + 3000).toISOString() }),
      );
      expect(await processed(live)).toBe('matched');
      const redemptions = await ctx.db.query(
        `SELECT r.transaction_id, r.offer_id FROM redemption r JOIN transaction t ON t.id = r.transaction_id WHERE t.cardholder_token = $1`,
        [token],
      );
      expect(redemptions).toEqual([{ transaction_id: live, offer_id: plain }]);
    });

    it('history must be a boolean', async () => {
      const w = await world([{}]);
      const res = await batch(w, [event(w, 'chk_x')], 'yes');
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('history');
    });
  });

  describe('the winner', () => {
    async function simulateAndMatch(w: World) {
      const token = uniq('chk_w');
      for (const o of w.offers) await add(w, o.id, token).expect(201);
      const body = event(w, token, { transacted_at: new Date(Date.now() + 1000).toISOString() });
      const sim = await ctx.api.http
        .post('/api/v1/transactions/simulate')
        .set('Authorization', w.auth)
        .send(body)
        .expect(200);
      const id = await post(w, body);
      expect(await processed(id)).toBe('matched');
      const [{ offer_id }] = await ctx.db.query(
        `SELECT offer_id FROM redemption WHERE transaction_id = $1`,
        [id],
      );
      return { sim: sim.body, redeemed: offer_id as string };
    }

    it('simulate names the winner (highest payout, then priority) and matching redeems that offer', async () => {
      const w = await world([
        { cashback_amount: 5 },
        { cashback_amount: 7 },
        { cashback_amount: 7, priority: 3 },
      ]);
      const { sim, redeemed } = await simulateAndMatch(w);
      expect(sim.winner).toMatchObject({
        offer_id: w.offers[2].id,
        currency: 'USD',
        institution_payout_amount: 7,
      });
      expect(sim.winner.rule).toContain('institution payout');
      expect(redeemed).toBe(w.offers[2].id);
    });

    it('on a full tie the lower offer id wins; no qualifying offer → winner null', async () => {
      const w = await world([{}, {}]);
      const lower = [w.offers[0].id, w.offers[1].id].sort()[0];
      const { sim, redeemed } = await simulateAndMatch(w);
      expect(sim.winner.offer_id).toBe(lower);
      expect(redeemed).toBe(lower);
      const none = await reasons(w, event(w, uniq('chk_none')));
      expect(Object.values(none).every((r) => (r as string[]).includes('not_enrolled'))).toBe(true);
      const res = await ctx.api.http
        .post('/api/v1/transactions/simulate')
        .set('Authorization', w.auth)
        .send(event(w, uniq('chk_none')))
        .expect(200);
      expect(res.body.winner).toBeNull();
    });
  });
});
