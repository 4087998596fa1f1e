// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-goals-${process.pid}` });

import { MatchingService } from '@app/core';
import { apiAndWorker, createWorld, DAY, eventually, uniq, World } from '@app/testing';
import { MatchingProcessor } from '../../worker/src/matching/matching.processor';

/**
 * Goal offers (purchase_count, cumulative_spend) through the public API and the worker: admin
 * API, progress over several purchases, rounds, refunds, competition with other offers, 30
 * concurrent purchases, feed progress and simulate.
 */
describe('goal offers', () => {
  const ctx = apiAndWorker();

  async function world(offers: Record<string, unknown>[]): Promise<World> {
    return createWorld(ctx.api, {
      merchants: [{}],
      offers: offers.map((o) => ({
        min_spend: 10,
        cashback_amount: 5,
        starts_at: new Date(Date.now() - DAY).toISOString(),
        ...o,
      })),
    });
  }

  const add = (w: World, offerId: string, token: string) =>
    ctx.api.http
      .post(`/api/v1/offers/${offerId}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: token })
      .expect(201);

  const event = (w: World, token: string, over: Record<string, unknown> = {}) => ({
    cardholder_token: token,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: w.merchants[0].identifiers[0].value,
    amount: 20,
    transaction_ref: uniq('ref-'),
    transacted_at: new Date().toISOString(),
    ...over,
  });

  const processed = (id: string, timeoutMs = 30_000) =>
    eventually(
      async () => {
        const [t] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
        return t && t.status !== 'received' ? (t.status as string) : null;
      },
      `transaction ${id} processed`,
      timeoutMs,
    );

  /** Posts a transaction and waits until the worker processed it; answers its id and ref. */
  async function buy(
    w: World,
    token: string,
    over: Record<string, unknown> = {},
  ): Promise<{ id: string; ref: string }> {
    const body = event(w, token, over);
    const res = await ctx.api.http
      .post('/api/v1/transactions')
      .set('Authorization', w.auth)
      .send(body);
    expect(res.status).toBe(202);
    await processed(res.body.id);
    return { id: res.body.id as string, ref: body.transaction_ref as string };
  }

  const refund = (w: World, token: string, ref: string, amount: number) =>
    buy(w, token, {
      transaction_type: 'refund',
      original_transaction_ref: ref,
      amount,
    });

  /** Redemptions, settlement entries and webhook deliveries of an offer, and its budget. */
  async function ledger(offerId: string) {
    const [row] = await ctx.db.query(
      `SELECT (SELECT count(*) FROM redemption WHERE offer_id = $1)::int AS redemptions,
              (SELECT count(*) FROM redemption WHERE offer_id = $1 AND status = 'reversed')::int AS reversed,
              (SELECT count(*) FROM settlement_entry WHERE offer_id = $1)::int AS entries,
              (SELECT count(*) FROM webhook_delivery d JOIN redemption r ON r.id = d.redemption_id
                WHERE r.offer_id = $1 AND d.event = 'redemption.completed')::int AS completed,
              (SELECT count(*) FROM webhook_delivery d JOIN redemption r ON r.id = d.redemption_id
                WHERE r.offer_id = $1 AND d.event = 'redemption.reversed')::int AS reversed_webhooks,
              (SELECT budget_used FROM offer_budget WHERE offer_id = $1)::int AS budget_used`,
      [offerId],
    );
    return row as Record<string, number>;
  }

  const redemptions = (offerId: string) =>
    ctx.db.query(
      `SELECT transaction_id, purchase_amount::int AS purchase, cashback_amount::int AS cashback, status, goal_round
         FROM redemption WHERE offer_id = $1 ORDER BY created_at, goal_round`,
      [offerId],
    );

  const enrollment = async (offerId: string, token: string) =>
    (
      await ctx.db.query(
        `SELECT status, redemption_count, goal_round, goal_progress::int AS goal_progress, goal_spend::int AS goal_spend
           FROM cardholder_offer WHERE offer_id = $1 AND cardholder_token = $2 AND status <> 'expired'`,
        [offerId, token],
      )
    )[0];

  async function progress(w: World, token: string, offerId: string) {
    const res = await ctx.api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: token })
      .set('Authorization', w.auth)
      .expect(200);
    return res.body.offers.find((o: { id: string }) => o.id === offerId)?.progress;
  }

  describe('admin API', () => {
    it('goal round-trips (spend target in major units, stored exactly); null removes it', async () => {
      const w = await world([
        { goal: { type: 'purchase_count', target: 3 } },
        { goal: { type: 'cumulative_spend', target: 100.55 } },
        {},
      ]);
      expect(w.offers.map((o) => o.goal)).toEqual([
        { type: 'purchase_count', target: 3 },
        { type: 'cumulative_spend', target: 100.55 },
        null,
      ]);
      const [{ goal_target }] = await ctx.db.query(`SELECT goal_target FROM offer WHERE id = $1`, [
        w.offers[1].id,
      ]);
      expect(goal_target).toBe('10055');
      const res = await ctx.api.http
        .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
        .set('Authorization', ctx.op())
        .send({ goal: null })
        .expect(200);
      expect(res.body.goal).toBeNull();
    });

    it('once a cardholder added the offer, the target may change but not the goal type', async () => {
      const w = await world([{ goal: { type: 'purchase_count', target: 3 } }]);
      const offer = w.offers[0].id;
      await add(w, offer, `chk_${uniq()}`);
      const patch = (goal: unknown) =>
        ctx.api.http
          .patch(`/admin/api/v1/offers/${offer}`)
          .set('Authorization', ctx.op())
          .send({ goal });
      expect((await patch({ type: 'purchase_count', target: 4 })).body.goal).toEqual({
        type: 'purchase_count',
        target: 4,
      });
      for (const goal of [null, { type: 'cumulative_spend', target: 50 }]) {
        const res = await patch(goal);
        expect([res.status, res.body.details?.[0]?.field]).toEqual([400, 'goal']);
      }
    });

    it.each([
      [{ type: 'purchase_count', target: 0 }],
      [{ type: 'purchase_count', target: -2 }],
      [{ type: 'purchase_count', target: 2.5 }],
      [{ type: 'cumulative_spend', target: 0 }],
      [{ type: 'cumulative_spend', target: 10.001 }],
      [{ type: 'visits', target: 3 }],
      [{ target: 3 }],
      ['three'],
    ])('rejects goal %j: 400 naming goal', async (goal) => {
      const w = await createWorld(ctx.api, { merchants: [{}] });
      const res = await ctx.api.http
        .post('/admin/api/v1/offers')
        .set('Authorization', ctx.op())
        .send({
          merchant_id: w.merchants[0].id,
          status: 'active',
          translations: { en: { title: 'Goal' } },
          min_spend: 10,
          cashback_amount: 5,
          currency: 'USD',
          starts_at: new Date(Date.now() - DAY).toISOString(),
          expires_at: new Date(Date.now() + DAY).toISOString(),
          goal,
        });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field).join(' ')).toMatch(/^goal/);
    });
  });

  it('purchase_count 3: the third qualifying purchase earns one reward, one webhook, one settlement entry; the feed shows progress', async () => {
    const w = await world([{ goal: { type: 'purchase_count', target: 3 } }]);
    const offer = w.offers[0].id;
    const token = `chk_${uniq()}`;
    expect(await progress(w, token, offer)).toEqual({ current: 0, target: 3, unit: 'purchases' });
    await add(w, offer, token);
    expect(await processed((await buy(w, token)).id)).toBe('unmatched');
    await buy(w, token, { amount: 5 }); // below min_spend: does not count
    await buy(w, token);
    expect(await progress(w, token, offer)).toEqual({ current: 2, target: 3, unit: 'purchases' });
    expect(await ledger(offer)).toMatchObject({ redemptions: 0, entries: 0, completed: 0 });
    const third = await buy(w, token, { amount: 30 });
    expect(await ledger(offer)).toMatchObject({
      redemptions: 1,
      entries: 1,
      completed: 1,
      budget_used: 500,
    });
    expect(await redemptions(offer)).toEqual([
      {
        transaction_id: third.id,
        purchase: 7_000,
        cashback: 500,
        status: 'pending',
        goal_round: 1,
      },
    ]);
    expect(await enrollment(offer, token)).toMatchObject({
      status: 'redeemed',
      redemption_count: 1,
      goal_round: 2,
      goal_progress: 0,
    });
    const [{ status }] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [
      third.id,
    ]);
    expect(status).toBe('matched');
  });

  it("matching's stats (the worker's `chunk matched` line) say a purchase counted toward an open round, not unmatched", async () => {
    const w = await world([{ goal: { type: 'purchase_count', target: 3 } }]);
    const token = `chk_${uniq()}`;
    await add(w, w.offers[0].id, token);
    // The worker's queue paused, this test runs the chunk itself and reads its stats.
    const queue = ctx.worker.get(MatchingProcessor).worker;
    await queue.pause();
    try {
      const counted = await ctx.api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send(event(w, token))
        .expect(202);
      const stranger = await ctx.api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send(event(w, `chk_${uniq()}`))
        .expect(202);
      const stats = await ctx.worker
        .get(MatchingService)
        .matchChunk([counted.body.id, stranger.body.id]);
      expect(stats).toMatchObject({ claimed: 2, matched: 0, countedTowardGoal: 1, unmatched: 1 });
    } finally {
      queue.resume();
    }
    expect(await progress(w, token, w.offers[0].id)).toMatchObject({ current: 1 });
  });

  it('a second round starts from zero while max_redemptions_per_cardholder allows', async () => {
    const w = await world([
      { goal: { type: 'purchase_count', target: 2 }, max_redemptions_per_cardholder: 2 },
    ]);
    const offer = w.offers[0].id;
    const token = `chk_${uniq()}`;
    await add(w, offer, token);
    for (let i = 0; i < 3; i++) await buy(w, token);
    expect(await progress(w, token, offer)).toEqual({ current: 1, target: 2, unit: 'purchases' });
    await buy(w, token);
    await buy(w, token); // the enrollment is redeemed: no third round
    expect(await ledger(offer)).toMatchObject({ redemptions: 2, entries: 2, completed: 2 });
    expect((await redemptions(offer)).map((r: { goal_round: number }) => r.goal_round)).toEqual([
      1, 2,
    ]);
    expect(await enrollment(offer, token)).toMatchObject({
      status: 'redeemed',
      redemption_count: 2,
      goal_round: 3,
      goal_progress: 0,
    });
  });

  it('a refund in the open round takes its purchase back; the goal then needs another purchase', async () => {
    const w = await world([{ goal: { type: 'purchase_count', target: 3 } }]);
    const offer = w.offers[0].id;
    const token = `chk_${uniq()}`;
    await add(w, offer, token);
    const a = await buy(w, token);
    await buy(w, token);
    const simulated = await ctx.api.http
      .post('/api/v1/transactions/simulate')
      .set('Authorization', w.auth)
      .send(
        event(w, token, {
          transaction_type: 'refund',
          original_transaction_ref: a.ref,
          amount: 15,
        }),
      )
      .expect(200);
    expect(simulated.body.refund.goals).toEqual([
      expect.objectContaining({ takes_back: 1, redemption_id: null, would_reverse: false }),
    ]);
    await refund(w, token, a.ref, 15); // net 5 < min_spend 10: no longer counts
    expect(await progress(w, token, offer)).toEqual({ current: 1, target: 3, unit: 'purchases' });
    await buy(w, token);
    expect(await ledger(offer)).toMatchObject({ redemptions: 0 });
    await buy(w, token);
    expect(await ledger(offer)).toMatchObject({ redemptions: 1, completed: 1, entries: 1 });
  });

  it('a refund taking a rewarded round below its target reverses the redemption (webhook, settlement, budget, enrollment); what is left counts again', async () => {
    const w = await world([{ goal: { type: 'purchase_count', target: 3 }, budget_total: 100 }]);
    const offer = w.offers[0].id;
    const token = `chk_${uniq()}`;
    await add(w, offer, token);
    await buy(w, token);
    const b = await buy(w, token);
    await buy(w, token);
    expect(await ledger(offer)).toMatchObject({ redemptions: 1, budget_used: 500 });
    const simulated = await ctx.api.http
      .post('/api/v1/transactions/simulate')
      .set('Authorization', w.auth)
      .send(
        event(w, token, {
          transaction_type: 'refund',
          original_transaction_ref: b.ref,
          amount: 20,
        }),
      )
      .expect(200);
    const [{ id: redemptionId }] = await ctx.db.query(
      `SELECT id FROM redemption WHERE offer_id = $1`,
      [offer],
    );
    expect(simulated.body.refund).toEqual({
      original_found: true,
      redemption_id: null,
      would_reverse: false,
      goals: [
        {
          offer_id: offer,
          cardholder_offer_id: expect.any(String),
          unit: 'purchases',
          takes_back: 1,
          redemption_id: redemptionId,
          would_reverse: true,
        },
      ],
    });
    await refund(w, token, b.ref, 20);
    expect(await ledger(offer)).toMatchObject({
      redemptions: 1,
      reversed: 1,
      entries: 1,
      completed: 1,
      reversed_webhooks: 1,
      budget_used: 0,
    });
    const [entry] = await ctx.db.query(
      `SELECT e.status, e.clawback_amount FROM settlement_entry e WHERE e.offer_id = $1`,
      [offer],
    );
    expect(entry).toEqual({ status: 'reversed', clawback_amount: null });
    expect(await enrollment(offer, token)).toMatchObject({
      status: 'active',
      redemption_count: 0,
      goal_round: 2,
      goal_progress: 2,
    });
    expect(await progress(w, token, offer)).toEqual({ current: 2, target: 3, unit: 'purchases' });
    // The two purchases left count: one more completes the goal again.
    const d = await buy(w, token);
    expect(await ledger(offer)).toMatchObject({ redemptions: 2, reversed: 1, completed: 2 });
    const live = (await redemptions(offer)).filter(
      (r: { status: string }) => r.status === 'pending',
    );
    expect(live).toEqual([
      { transaction_id: d.id, purchase: 6_000, cashback: 500, status: 'pending', goal_round: 2 },
    ]);
  });

  it('a settled round that a refund takes below its target is reversed with a clawback of the payout', async () => {
    const w = await createWorld(ctx.api, {
      program: { settlement_hold_days: 0 },
      merchants: [{}],
      offers: [
        {
          min_spend: 10,
          cashback_amount: 5,
          starts_at: new Date(Date.now() - DAY).toISOString(),
          goal: { type: 'cumulative_spend', target: 50 },
        },
      ],
    });
    const offer = w.offers[0].id;
    const token = `chk_${uniq()}`;
    await add(w, offer, token);
    const a = await buy(w, token, { amount: 30 });
    await buy(w, token, { amount: 30 });
    await ctx.api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', ctx.op())
      .send({})
      .expect(200);
    expect((await redemptions(offer))[0].status).toBe('settled');
    await refund(w, token, a.ref, 5); // 55 in the round: still at its target
    expect(await ledger(offer)).toMatchObject({ reversed: 0 });
    await refund(w, token, a.ref, 10); // 45 < 50: reversed
    expect(await ledger(offer)).toMatchObject({ reversed: 1, reversed_webhooks: 1 });
    const [entry] = await ctx.db.query(
      `SELECT status, clawback_amount FROM settlement_entry WHERE offer_id = $1`,
      [offer],
    );
    expect(entry).toEqual({ status: 'reversed', clawback_amount: '500' });
    expect(await enrollment(offer, token)).toMatchObject({
      status: 'active',
      goal_round: 2,
      goal_progress: 4_500,
      goal_spend: 4_500,
    });
  });

  it('a rewarded round keeps the target it was paid under: a later target change neither reverses nor spares it (simulate agrees)', async () => {
    const w = await createWorld(ctx.api, {
      program: { settlement_hold_days: 0 },
      merchants: [{}],
      offers: [
        {
          min_spend: 0,
          cashback_amount: 5,
          starts_at: new Date(Date.now() - DAY).toISOString(),
          goal: { type: 'cumulative_spend', target: 100 },
        },
        {
          min_spend: 0,
          cashback_amount: 5,
          starts_at: new Date(Date.now() - DAY).toISOString(),
          goal: { type: 'cumulative_spend', target: 200 },
        },
      ],
    });
    const [raised, lowered] = w.offers.map((o) => o.id);
    const setTarget = (offer: string, target: number) =>
      ctx.api.http
        .patch(`/admin/api/v1/offers/${offer}`)
        .set('Authorization', ctx.op())
        .send({ goal: { type: 'cumulative_spend', target } })
        .expect(200);
    const simulateRefund = async (token: string, ref: string, amount: number) =>
      (
        await ctx.api.http
          .post('/api/v1/transactions/simulate')
          .set('Authorization', w.auth)
          .send(
            event(w, token, { transaction_type: 'refund', original_transaction_ref: ref, amount }),
          )
          .expect(200)
      ).body.refund.goals[0].would_reverse;
    const [t1, t2] = [`chk_${uniq()}`, `chk_${uniq()}`];
    await add(w, raised, t1);
    const a = await buy(w, t1, { amount: 60 });
    await buy(w, t1, { amount: 60 }); // $120 ≥ $100: rewarded
    await add(w, lowered, t2);
    const b = await buy(w, t2, { amount: 110 });
    await buy(w, t2, { amount: 110 }); // $220 ≥ $200: rewarded
    await ctx.api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', ctx.op())
      .send({})
      .expect(200);
    expect((await redemptions(raised))[0].status).toBe('settled');
    await setTarget(raised, 200);
    await setTarget(lowered, 100);
    // $110 left: below the new $200, still at the $100 the round was paid under.
    expect(await simulateRefund(t1, a.ref, 10)).toBe(false);
    await refund(w, t1, a.ref, 10);
    expect(await ledger(raised)).toMatchObject({
      redemptions: 1,
      reversed: 0,
      reversed_webhooks: 0,
    });
    // $170 left: above the new $100, below the $200 the round was paid under.
    expect(await simulateRefund(t2, b.ref, 50)).toBe(true);
    await refund(w, t2, b.ref, 50);
    expect(await ledger(lowered)).toMatchObject({
      redemptions: 1,
      reversed: 1,
      reversed_webhooks: 1,
    });
    // The open round follows the new target: what is left ($170) reaches $100, so it completes
    // on the next counted purchase.
    expect(await enrollment(lowered, t2)).toMatchObject({ goal_round: 2, goal_progress: 17_000 });
  });

  it('a partial refund that keeps the rewarded round at its target reverses nothing', async () => {
    const w = await world([{ goal: { type: 'purchase_count', target: 2 } }]);
    const offer = w.offers[0].id;
    const token = `chk_${uniq()}`;
    await add(w, offer, token);
    const a = await buy(w, token);
    await buy(w, token);
    await refund(w, token, a.ref, 5); // net 15 ≥ min_spend: still counts
    expect(await ledger(offer)).toMatchObject({
      redemptions: 1,
      reversed: 0,
      reversed_webhooks: 0,
    });
  });

  it('cumulative_spend with a percent reward: percent of the round’s counted spend, capped; the feed shows amounts in major units', async () => {
    const w = await world([
      {
        goal: { type: 'cumulative_spend', target: 100 },
        min_spend: 0,
        reward_type: 'percent',
        cashback_percent: 10,
        cashback_amount: 15,
      },
    ]);
    const offer = w.offers[0].id;
    const [t1, t2] = [`chk_${uniq()}`, `chk_${uniq()}`];
    await add(w, offer, t1);
    await add(w, offer, t2);
    await buy(w, t1, { amount: 42.5 });
    expect(await progress(w, t1, offer)).toEqual({ current: 42.5, target: 100, unit: 'amount' });
    await buy(w, t1, { amount: 62.5 });
    await buy(w, t2, { amount: 60 });
    await buy(w, t2, { amount: 140 });
    const rows = await redemptions(offer);
    expect(
      rows.map((r: { purchase: number; cashback: number }) => [r.purchase, r.cashback]),
    ).toEqual([
      [10_500, 1_050],
      [20_000, 1_500],
    ]);
    expect(await ledger(offer)).toMatchObject({ redemptions: 2, entries: 2, completed: 2 });
  });

  it('a purchase another offer wins still counts toward the goal; the goal completes on a later purchase', async () => {
    const w = await world([
      { goal: { type: 'purchase_count', target: 2 }, cashback_amount: 1 },
      { cashback_amount: 5 },
    ]);
    const [goal, plain] = w.offers.map((o) => o.id);
    const token = `chk_${uniq()}`;
    await add(w, goal, token);
    await add(w, plain, token);
    const first = await buy(w, token);
    expect(
      (await redemptions(plain)).map((r: { transaction_id: string }) => r.transaction_id),
    ).toEqual([first.id]);
    expect(await progress(w, token, goal)).toEqual({ current: 1, target: 2, unit: 'purchases' });
    const second = await buy(w, token);
    expect(await redemptions(goal)).toEqual([
      {
        transaction_id: second.id,
        purchase: 4_000,
        cashback: 100,
        status: 'pending',
        goal_round: 1,
      },
    ]);
  });

  it.each(['clearing', 'authorization'])(
    'reward_on %s: a card chain (authorization, then clearing) counts once toward a goal, on its clearing',
    async (rewardOn) => {
      const w = await createWorld(ctx.api, {
        program: { reward_on: rewardOn },
        merchants: [{}],
        offers: [
          {
            min_spend: 10,
            cashback_amount: 5,
            starts_at: new Date(Date.now() - DAY).toISOString(),
            goal: { type: 'purchase_count', target: 2 },
          },
        ],
      });
      const offer = w.offers[0].id;
      const token = `chk_${uniq()}`;
      await add(w, offer, token);
      const chain = async () => {
        const auth = await buy(w, token, { transaction_type: 'authorization' });
        const clearing = await buy(w, token, {
          transaction_type: 'clearing',
          original_transaction_ref: auth.ref,
        });
        return { auth, clearing };
      };
      const simulated = await ctx.api.http
        .post('/api/v1/transactions/simulate')
        .set('Authorization', w.auth)
        .send(event(w, token, { transaction_type: 'authorization' }))
        .expect(200);
      expect(simulated.body.evaluations[0]).toMatchObject(
        rewardOn === 'authorization'
          ? { reasons: ['goal_counts_at_clearing'], goal: { counts: 0 } }
          : { reasons: ['goal_not_reached'], goal: { counts: 1 } },
      );
      const first = await chain();
      expect(await enrollment(offer, token)).toMatchObject({ goal_progress: 1 });
      // A refund naming the chain's authorization takes back what its clearing counted.
      await refund(w, token, first.auth.ref, 20);
      expect(await enrollment(offer, token)).toMatchObject({ goal_progress: 0 });
      await chain();
      expect(await enrollment(offer, token)).toMatchObject({ goal_progress: 1 });
      expect(await ledger(offer)).toMatchObject({ redemptions: 0 });
      const { clearing: second } = await chain();
      expect(await redemptions(offer)).toEqual([
        {
          transaction_id: second.id,
          purchase: 4_000,
          cashback: 500,
          status: 'pending',
          goal_round: 1,
        },
      ]);
      expect(await ledger(offer)).toMatchObject({ redemptions: 1, completed: 1, entries: 1 });
    },
  );

  it('simulate explains a goal offer: what the purchase counts and whether it completes', async () => {
    const w = await world([{ goal: { type: 'purchase_count', target: 2 } }]);
    const offer = w.offers[0].id;
    const token = `chk_${uniq()}`;
    await add(w, offer, token);
    const simulate = async () =>
      (
        await ctx.api.http
          .post('/api/v1/transactions/simulate')
          .set('Authorization', w.auth)
          .send(event(w, token))
          .expect(200)
      ).body;
    const before = await simulate();
    expect(before.matched).toBe(false);
    expect(before.evaluations[0]).toMatchObject({
      outcome: 'no_match',
      reasons: ['goal_not_reached'],
      goal: { unit: 'purchases', counts: 1, current: 0, target: 2, completes: false },
    });
    await buy(w, token);
    const after = await simulate();
    expect(after.winner).toMatchObject({ offer_id: offer });
    expect(after.evaluations[0]).toMatchObject({
      outcome: 'match',
      reasons: [],
      goal: { counts: 1, current: 1, target: 2, completes: true },
    });
  });

  it('30 purchases posted at once complete a 30-purchase goal exactly once', async () => {
    const w = await world([{ goal: { type: 'purchase_count', target: 30 } }]);
    const offer = w.offers[0].id;
    const token = `chk_${uniq()}`;
    await add(w, offer, token);
    // Distinct times after the add, so the order of the purchases is defined.
    const t0 = Date.now() + 1_000;
    const ids = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await ctx.api.http
          .post('/api/v1/transactions')
          .set('Authorization', w.auth)
          .send(event(w, token, { transacted_at: new Date(t0 + i).toISOString() }));
        expect(res.status).toBe(202);
        return res.body.id as string;
      }),
    );
    // Past the relay's grace (MATCH_RELAY_GRACE_MS, 30 s): in a loaded CI run on 7f2fe67 one of
    // the 30 was still `received` after 30 s and only the relay would have taken it. Why it was
    // left (a chunk skipping a row another holds, or a lost wake-up) is open; this test is about
    // the goal completing exactly once, which the relay's re-run must keep too.
    for (const id of ids) await processed(id, 45_000);
    expect(await ledger(offer)).toMatchObject({
      redemptions: 1,
      entries: 1,
      completed: 1,
      budget_used: 500,
    });
    const [{ n }] = await ctx.db.query(
      `SELECT count(*)::int AS n FROM goal_contribution c JOIN cardholder_offer co ON co.id = c.cardholder_offer_id
        WHERE co.offer_id = $1`,
      [offer],
    );
    expect(n).toBe(30);
    expect(await enrollment(offer, token)).toMatchObject({
      status: 'redeemed',
      redemption_count: 1,
      goal_round: 2,
    });
  });
});
