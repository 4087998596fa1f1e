// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-pipeline-${process.pid}` });

import { Client } from 'pg';
import { EvaluationReports, HoldoutKeys, MatchingService } from '@app/core';
import { EvaluatedOffer, inHoldout, NO_MATCH_REASONS, toMajor, toMinor } from '@app/domain';
import { apiAndWorker, createWorld, eventually, uniq, World } from '@app/testing';

type Body = Record<string, unknown>;
interface SimEvaluation {
  offer_id: string;
  cardholder_offer_id: string | null;
  outcome: string;
  reasons: string[];
  cashback_amount: number;
  goal?: { unit: string; counts: number; current: number; target: number; completes: boolean };
}
interface Sim {
  matched: boolean;
  evaluations: SimEvaluation[];
  winner?: {
    offer_id: string;
    cardholder_offer_id: string;
    institution_payout_amount: number;
  } | null;
  refund?: {
    original_found: boolean;
    redemption_id: string | null;
    would_reverse: boolean;
    goals?: { cardholder_offer_id: string; takes_back: number; would_reverse: boolean }[];
  };
  lifecycle?: { action: string; outcome: string };
}

/**
 * One evaluation, two entry points compared: for each scenario, simulate (report mode, before the
 * post) and matching (the worker's chunk, after it) must agree on (a) the winner and the
 * redemption written, (b) every offer's outcome and reasons (matching's own evaluation report,
 * heard through EvaluationReports), (c) the budget, enrollment counts and goal progress. Together
 * the scenarios cover every reason of docs/transactions.md.
 */
describe('one evaluation pipeline: simulate answers what matching does', () => {
  const ctx = apiAndWorker();
  const heard = new Map<string, EvaluatedOffer[]>();
  const reasonsSeen = { simulate: new Set<string>(), matching: new Set<string>() };
  let stop: () => void = () => undefined;
  beforeAll(() => {
    stop = ctx.worker.get(EvaluationReports).listen((r) => {
      for (const [id, list] of r.report) heard.set(id, list);
    });
  });
  afterAll(() => stop());

  const simulate = async (w: World, body: Body): Promise<Sim> =>
    (
      await ctx.api.http
        .post('/api/v1/transactions/simulate')
        .set('Authorization', w.auth)
        .send(body)
        .expect(200)
    ).body as Sim;

  /** Posts and waits until matching processed it; the transaction id. */
  const post = async (w: World, body: Body): Promise<string> => {
    const res = await ctx.api.http
      .post('/api/v1/transactions')
      .set('Authorization', w.auth)
      .send(body)
      .expect(202);
    const id = res.body.id as string;
    await eventually(
      async () => {
        const [t] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
        return t && t.status !== 'received' ? true : null;
      },
      `transaction ${id} processed`,
      20_000,
    );
    return id;
  };

  interface State {
    budget: Map<string, number>;
    enrollments: Map<
      string,
      {
        offer_id: string;
        redemption_count: number;
        status: string;
        round: number;
        progress: number;
      }
    >;
    contributions: Map<string, number>;
  }
  /** Budget used per offer, the cardholder's enrollments and goal contributions (minor units). */
  const state = async (w: World, token: string): Promise<State> => {
    const offers: { id: string; budget_used: string }[] = await ctx.db.query(
      `SELECT offer_id AS id, budget_used FROM offer_budget WHERE offer_id = ANY($1::uuid[])`,
      [w.offers.map((o) => o.id)],
    );
    const enrollments: {
      id: string;
      offer_id: string;
      redemption_count: number;
      status: string;
      goal_round: number;
      goal_progress: string;
    }[] = await ctx.db.query(
      `SELECT id, offer_id, redemption_count, status, goal_round, goal_progress FROM cardholder_offer
        WHERE institution_id = $1 AND cardholder_token = $2`,
      [w.institution.id, token],
    );
    const contributions: { transaction_id: string; cardholder_offer_id: string; units: string }[] =
      await ctx.db.query(
        `SELECT g.transaction_id, g.cardholder_offer_id, g.units FROM goal_contribution g
           JOIN cardholder_offer co ON co.id = g.cardholder_offer_id
          WHERE co.institution_id = $1 AND co.cardholder_token = $2`,
        [w.institution.id, token],
      );
    return {
      budget: new Map(offers.map((o) => [o.id, Number(o.budget_used)])),
      enrollments: new Map(
        enrollments.map((e) => [
          e.id,
          {
            offer_id: e.offer_id,
            redemption_count: e.redemption_count,
            status: e.status,
            round: e.goal_round,
            progress: Number(e.goal_progress),
          },
        ]),
      ),
      contributions: new Map(
        contributions.map((c) => [`${c.transaction_id}/${c.cardholder_offer_id}`, Number(c.units)]),
      ),
    };
  };

  const offerOf = (w: World, id: string) => w.offers.find((o) => o.id === id)!;
  const currencyOf = (w: World, id: string) => String(offerOf(w, id).currency);
  const feeOf = (w: World, id: string) =>
    toMinor(String(offerOf(w, id).merchant_fee_amount ?? 0), currencyOf(w, id));

  /**
   * Simulates `body`, posts it, and compares simulate's answer with what matching decided, heard
   * and wrote. Returns the simulation and the transaction id.
   */
  async function compare(
    w: World,
    token: string,
    body: Body,
  ): Promise<{ sim: Sim; id: string; before: State; after: State }> {
    const before = await state(w, token);
    const sim = await simulate(w, body);
    const id = await post(w, body);
    const after = await state(w, token);
    const [red] = await ctx.db.query(
      `SELECT offer_id, cardholder_offer_id, institution_payout_amount, currency FROM redemption WHERE transaction_id = $1`,
      [id],
    );
    for (const e of sim.evaluations) for (const r of e.reasons) reasonsSeen.simulate.add(r);
    const report = heard.get(id);
    for (const e of report ?? []) for (const r of e.evaluation.reasons) reasonsSeen.matching.add(r);

    const atClearing = sim.lifecycle?.outcome === 'would_match_at_clearing';
    // (a) the winner is the redemption matching wrote (none for a record rewarded at clearing).
    const written = red
      ? {
          offer_id: red.offer_id,
          cardholder_offer_id: red.cardholder_offer_id,
          institution_payout_amount: toMajor(red.institution_payout_amount, red.currency),
        }
      : null;
    if (!atClearing && !sim.refund && sim.lifecycle?.action !== 'reverse')
      expect(
        sim.winner
          ? {
              offer_id: sim.winner.offer_id,
              cardholder_offer_id: sim.winner.cardholder_offer_id,
              institution_payout_amount: sim.winner.institution_payout_amount,
            }
          : null,
      ).toEqual(written);
    else expect(written).toBeNull();

    // (b) every offer's outcome and reasons: simulate's answer is matching's own report.
    const words = (list: { offer_id: string; outcome: string; reasons: string[] }[]) =>
      [...list].sort((a, b) => (a.offer_id < b.offer_id ? -1 : 1));
    if (atClearing || sim.refund || !sim.evaluations.length) expect(report ?? []).toEqual([]);
    else
      expect(
        words(
          sim.evaluations.map(({ offer_id, outcome, reasons }) => ({ offer_id, outcome, reasons })),
        ),
      ).toEqual(
        words(
          (report ?? []).map((e) => ({
            offer_id: e.offer.id,
            outcome: e.evaluation.outcome,
            reasons: e.evaluation.reasons,
          })),
        ),
      );

    // (c) budget, enrollment counts and goal progress moved as simulate said.
    const budgetDelta = new Map<string, number>();
    const countDelta = new Map<string, number>();
    if (sim.winner && !atClearing) {
      const win = sim.evaluations.find((e) => e.offer_id === sim.winner!.offer_id)!;
      const c = currencyOf(w, win.offer_id);
      budgetDelta.set(
        win.offer_id,
        toMinor(String(win.cashback_amount), c) + feeOf(w, win.offer_id),
      );
      countDelta.set(win.cardholder_offer_id!, 1);
    }
    if (sim.refund?.would_reverse || sim.lifecycle?.outcome === 'would_reverse') {
      const [r] = await ctx.db.query(
        `SELECT offer_id, cardholder_offer_id, merchant_funded_amount, status FROM redemption
          WHERE institution_id = $1 AND cardholder_token = $2 AND reversed_at IS NOT NULL
          ORDER BY reversed_at DESC LIMIT 1`,
        [w.institution.id, token],
      );
      expect(r?.status).toBe('reversed');
      budgetDelta.set(r.offer_id, -Number(r.merchant_funded_amount));
      countDelta.set(r.cardholder_offer_id, -1);
    }
    for (const o of w.offers)
      expect([o.id, after.budget.get(o.id)! - before.budget.get(o.id)!]).toEqual([
        o.id,
        budgetDelta.get(o.id) ?? 0,
      ]);
    for (const [eid, e] of after.enrollments)
      expect([
        eid,
        e.redemption_count - (before.enrollments.get(eid)?.redemption_count ?? 0),
      ]).toEqual([eid, countDelta.get(eid) ?? 0]);
    for (const e of atClearing ? [] : sim.evaluations) {
      if (!e.goal || !e.cardholder_offer_id) continue;
      const b = before.enrollments.get(e.cardholder_offer_id)!;
      const a = after.enrollments.get(e.cardholder_offer_id)!;
      const major = (v: number) =>
        e.goal!.unit === 'amount' ? toMajor(v, currencyOf(w, e.offer_id)) : v;
      expect(major(b.progress)).toBe(e.goal.current);
      if (e.outcome === 'match') expect([a.round, a.progress]).toEqual([b.round + 1, 0]);
      else expect([a.round, major(a.progress)]).toEqual([b.round, e.goal.current + e.goal.counts]);
    }
    for (const g of sim.refund?.goals ?? []) {
      const key = [...before.contributions.keys()].find((k) =>
        k.endsWith(`/${g.cardholder_offer_id}`),
      )!;
      expect(before.contributions.get(key)! - after.contributions.get(key)!).toBe(g.takes_back);
    }
    return { sim, id, before, after };
  }

  const enroll = async (w: World, token: string, offerIds = w.offers.map((o) => o.id)) => {
    for (const id of offerIds)
      await ctx.api.http
        .post(`/api/v1/offers/${id}/add`)
        .set('Authorization', w.auth)
        .send({ cardholder_token: token })
        .expect(201);
  };
  const purchase = (w: World, token: string, over: Body = {}): Body => ({
    cardholder_token: token,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: w.merchants[0].identifiers[0].value,
    amount: 25,
    currency: 'USD',
    network: 'visa',
    channel: 'in_store',
    transaction_ref: uniq('ref-'),
    transacted_at: new Date().toISOString(),
    ...over,
  });
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

  it('one purchase against every rule at one merchant: the winner, better_offer_selected and each failing rule', async () => {
    const now = Date.now();
    const today = ((new Date(now).getUTCDay() + 6) % 7) + 1;
    const w = await createWorld(ctx.api, {
      program: { time_zone: 'UTC', max_active_offers: 20 },
      merchants: [{}],
      offers: [
        { min_spend: 20, cashback_amount: 5 }, // 0: qualifies, loses to 1
        { min_spend: 20, cashback_amount: 5, merchant_fee_amount: 2 }, // 1: wins (higher payout)
        { min_spend: 20, cashback_amount: 5 }, // 2: not enrolled
        { min_spend: 20, cashback_amount: 5, currency: 'EUR' }, // 3
        { min_spend: 100, cashback_amount: 5 }, // 4
        { min_spend: 20, cashback_amount: 5, qualification: { max_spend: 21 } }, // 5
        { min_spend: 20, cashback_amount: 5, qualification: { days_of_week: [(today % 7) + 1] } }, // 6
        {
          min_spend: 20,
          cashback_amount: 5,
          qualification: {
            time_of_day: { from: hhmm(now + 2 * 3600_000), to: hhmm(now + 3 * 3600_000) },
          },
        }, // 7
        { min_spend: 20, cashback_amount: 5, qualification: { channels: ['online'] } }, // 8
        { min_spend: 20, cashback_amount: 5, qualification: { networks: ['elo'] } }, // 9
        { min_spend: 20, cashback_amount: 5, budget_total: 10 }, // 10: budget spent below
        { min_spend: 20, cashback_amount: 5 }, // 11: paused after the add
        {
          min_spend: 20,
          cashback_amount: 5,
          qualification: { audience: 'lapsed', lookback_days: 30 },
        }, // 12
        { min_spend: 20, cashback_amount: 5, qualification: { activation_days: 1 } }, // 13: added 2 days ago
        { min_spend: 20, cashback_amount: 5, goal: { type: 'purchase_count', target: 3 } }, // 14
      ],
    });
    const token = `chk_${uniq()}`;
    await enroll(
      w,
      token,
      w.offers.filter((_, i) => i !== 2).map((o) => o.id),
    );
    await ctx.db.query(
      `UPDATE offer_budget SET budget_used = (SELECT budget_total FROM offer WHERE id = $1) WHERE offer_id = $1`,
      [w.offers[10].id],
    );
    await ctx.api.http
      .patch(`/admin/api/v1/offers/${w.offers[11].id}`)
      .set('Authorization', ctx.op())
      .send({ status: 'paused' })
      .expect(200);
    await ctx.db.query(
      `UPDATE cardholder_offer SET added_at = now() - interval '2 days' WHERE offer_id = $1`,
      [w.offers[13].id],
    );
    const { sim } = await compare(w, token, purchase(w, token));
    const by = new Map(sim.evaluations.map((e) => [e.offer_id, e.reasons]));
    expect(sim.winner?.offer_id).toBe(w.offers[1].id);
    expect(by.get(w.offers[0].id)).toEqual(['better_offer_selected']);
    expect(by.get(w.offers[2].id)).toEqual(['not_enrolled']);
    expect(by.get(w.offers[3].id)).toContain('currency_mismatch');
    expect(by.get(w.offers[4].id)).toEqual(['below_min_spend']);
    expect(by.get(w.offers[5].id)).toEqual(['above_max_spend']);
    expect(by.get(w.offers[6].id)).toEqual(['outside_days']);
    expect(by.get(w.offers[7].id)).toEqual(['outside_hours']);
    expect(by.get(w.offers[8].id)).toEqual(['channel_mismatch']);
    expect(by.get(w.offers[9].id)).toEqual(['network_mismatch']);
    expect(by.get(w.offers[10].id)).toEqual(['budget_exhausted']);
    expect(by.get(w.offers[11].id)).toEqual(['offer_inactive']);
    expect(by.get(w.offers[12].id)).toEqual(['audience_mismatch']);
    expect(by.get(w.offers[13].id)).toEqual(['activation_expired']);
    expect(by.get(w.offers[14].id)).toEqual(['goal_not_reached']);
  });

  it('outside the window and enrolled after the purchase; an unresolved merchant', async () => {
    const w = await createWorld(ctx.api, {
      merchants: [{}],
      offers: [{ starts_at: new Date(Date.now() - 3600_000).toISOString() }],
    });
    const token = `chk_${uniq()}`;
    await enroll(w, token);
    const early = await compare(
      w,
      token,
      purchase(w, token, { transacted_at: new Date(Date.now() - 2 * 3600_000).toISOString() }),
    );
    expect(early.sim.evaluations[0].reasons).toEqual([
      'enrolled_after_purchase',
      'outside_offer_window',
    ]);
    const unresolved = await compare(
      w,
      token,
      purchase(w, token, { merchant_identifier: uniq('UNKNOWN-') }),
    );
    expect(unresolved.sim.evaluations.map((e) => e.reasons)).toEqual([['merchant_mismatch']]);
  });

  it('a held-out cardholder: holdout first, in simulate and in matching, and no reward', async () => {
    const w = await createWorld(ctx.api, {
      merchants: [{}],
      offers: [{ holdout_percent: 50, min_spend: 20, cashback_amount: 5 }],
    });
    const offer = w.offers[0].id;
    const key = ctx.api.app.get(HoldoutKeys, { strict: false }).of(w.institution.id);
    let token = '';
    for (let i = 0; !token; i++) {
      const t = `chk_${uniq(`h${i}-`)}`;
      if (inHoldout(key, offer, t, 5000)) token = t;
    }
    // The add refuses a held-out cardholder (404); an enrollment written another way must not pay.
    await ctx.db.query(
      `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, added_at)
       VALUES ($1, $2, $3, now() - interval '1 hour')`,
      [w.institution.id, offer, token],
    );
    const held = await compare(w, token, purchase(w, token));
    expect(held.sim.winner).toBeNull();
    expect(held.sim.evaluations[0]).toMatchObject({ outcome: 'no_match' });
    expect(held.sim.evaluations[0].reasons[0]).toBe('holdout');
  });

  it('the per-cardholder limit: a redemption, then the redeemed enrollment; a refund reverses it', async () => {
    const w = await createWorld(ctx.api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, merchant_fee_amount: 1, budget_total: 100 }],
    });
    const token = `chk_${uniq()}`;
    await enroll(w, token);
    const first = purchase(w, token);
    expect((await compare(w, token, first)).sim.winner).not.toBeNull();
    const second = await compare(w, token, purchase(w, token));
    expect(second.sim.evaluations[0].reasons).toEqual([
      'enrollment_inactive',
      'redemption_limit_reached',
    ]);
    const refund = await compare(
      w,
      token,
      purchase(w, token, {
        transaction_type: 'refund',
        original_transaction_ref: first.transaction_ref,
        amount: 10,
      }),
    );
    expect(refund.sim.refund).toMatchObject({ original_found: true, would_reverse: true });
  });

  it('goal offers: progress, the round reached, and a refund taking a count back', async () => {
    const w = await createWorld(ctx.api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, goal: { type: 'purchase_count', target: 2 } }],
    });
    const token = `chk_${uniq()}`;
    await enroll(w, token);
    const first = purchase(w, token);
    const a = await compare(w, token, first);
    expect(a.sim.evaluations[0]).toMatchObject({
      reasons: ['goal_not_reached'],
      goal: { counts: 1 },
    });
    const refund = await compare(
      w,
      token,
      purchase(w, token, {
        transaction_type: 'refund',
        original_transaction_ref: first.transaction_ref,
        amount: 25,
      }),
    );
    expect(refund.sim.refund?.goals).toEqual([expect.objectContaining({ takes_back: 1 })]);
    await compare(w, token, purchase(w, token));
    const done = await compare(w, token, purchase(w, token));
    expect(done.sim.evaluations[0]).toMatchObject({ outcome: 'match', goal: { completes: true } });
  });

  it('card lifecycle: recorded at the swipe, decided at clearing; decided at the swipe, reversed by a void', async () => {
    for (const rewardOn of ['clearing', 'authorization'] as const) {
      const w = await createWorld(ctx.api, {
        program: { reward_on: rewardOn },
        merchants: [{}],
        offers: [
          { min_spend: 20, cashback_amount: 5 },
          { min_spend: 20, cashback_amount: 5, goal: { type: 'purchase_count', target: 1 } },
        ],
      });
      const token = `chk_${uniq()}`;
      await enroll(w, token);
      const auth = purchase(w, token, { transaction_type: 'authorization' });
      const swipe = await compare(w, token, auth);
      if (rewardOn === 'clearing') {
        expect(swipe.sim.lifecycle).toMatchObject({
          action: 'record',
          outcome: 'would_match_at_clearing',
        });
        const clearing = await compare(
          w,
          token,
          purchase(w, token, {
            transaction_type: 'clearing',
            original_transaction_ref: auth.transaction_ref,
          }),
        );
        expect(clearing.sim.lifecycle).toMatchObject({ action: 'decide', outcome: 'match' });
      } else {
        expect(swipe.sim.lifecycle).toMatchObject({ action: 'decide', outcome: 'match' });
        expect(swipe.sim.evaluations.find((e) => e.offer_id === w.offers[1].id)?.reasons).toEqual([
          'goal_counts_at_clearing',
        ]);
        const voided = await compare(
          w,
          token,
          purchase(w, token, {
            transaction_type: 'authorization_reversal',
            original_transaction_ref: auth.transaction_ref,
          }),
        );
        expect(voided.sim.lifecycle).toMatchObject({ action: 'reverse', outcome: 'would_reverse' });
      }
    }
  });

  it('together the scenarios cover every reason, in simulate and in matching', () => {
    expect([...reasonsSeen.simulate].sort()).toEqual([...NO_MATCH_REASONS].sort());
    expect([...reasonsSeen.matching].sort()).toEqual([...NO_MATCH_REASONS].sort());
  });

  it('simulate takes no lock: it answers within 1 s while a chunk holds the offer, enrollment and chain', async () => {
    const w = await createWorld(ctx.api, {
      program: { reward_on: 'authorization' },
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, budget_total: 100 }],
    });
    const token = `chk_${uniq()}`;
    await enroll(w, token);
    const auth = purchase(w, token, { transaction_type: 'authorization' });
    await post(w, auth);
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      // The row locks a matching chunk takes on these (MatchingRepository, CardLifecycleRepository).
      await holder.query(`SELECT 1 FROM offer WHERE id = $1 FOR NO KEY UPDATE`, [w.offers[0].id]);
      await holder.query(
        `SELECT 1 FROM cardholder_offer WHERE institution_id = $1 AND cardholder_token = $2 FOR NO KEY UPDATE`,
        [w.institution.id, token],
      );
      await holder.query(
        `SELECT 1 FROM card_chain WHERE institution_id = $1 AND authorization_ref = $2 FOR UPDATE`,
        [w.institution.id, auth.transaction_ref],
      );
      await holder.query(`SELECT 1 FROM transaction WHERE institution_id = $1 FOR UPDATE`, [
        w.institution.id,
      ]);
      const t0 = Date.now();
      const sim = await ctx.api.http
        .post('/api/v1/transactions/simulate')
        .set('Authorization', w.auth)
        .timeout(1000)
        .send(
          purchase(w, token, {
            transaction_type: 'clearing',
            original_transaction_ref: auth.transaction_ref,
          }),
        )
        .expect(200);
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(sim.body.lifecycle).toMatchObject({ action: 'confirm', outcome: 'match' });
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });

  describe('a stored transaction run again (write mode, the claims entry point)', () => {
    it('matches a purchase whose merchant was mapped since, once: the redemption, budget, count and webhook row; again: already rewarded', async () => {
      const w = await createWorld(ctx.api, {
        merchants: [{}],
        offers: [{ min_spend: 20, cashback_amount: 5, budget_total: 100 }],
      });
      const token = `chk_${uniq()}`;
      await enroll(w, token);
      const identifier = uniq('LATER-');
      const id = await post(w, purchase(w, token, { merchant_identifier: identifier }));
      const [t] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
      expect(t.status).toBe('merchant_unresolved');
      await ctx.db.query(
        `INSERT INTO merchant_identifier (merchant_id, type, value) VALUES ($1, 'card_acceptor', $2)`,
        [w.merchants[0].id, identifier],
      );
      const matching = ctx.api.app.get(MatchingService);
      const done = await matching.rematchStored(id);
      expect(done).toMatchObject({
        status: 'matched',
        alreadyRewarded: null,
        redemption: { offerId: w.offers[0].id, institutionPayout: 500, currency: 'USD' },
      });
      expect(done.evaluations.map((e) => [e.offer.id, e.evaluation.outcome])).toEqual([
        [w.offers[0].id, 'match'],
      ]);
      const [row] = await ctx.db.query(
        `SELECT t.status, r.id AS redemption_id, b.budget_used, co.redemption_count,
                (SELECT count(*)::int FROM webhook_delivery d WHERE d.redemption_id = r.id AND d.event = 'redemption.completed') AS hooks,
                (SELECT count(*)::int FROM settlement_entry e WHERE e.redemption_id = r.id) AS entries
           FROM transaction t JOIN redemption r ON r.transaction_id = t.id JOIN offer_budget b ON b.offer_id = r.offer_id
           JOIN cardholder_offer co ON co.id = r.cardholder_offer_id WHERE t.id = $1`,
        [id],
      );
      expect(row).toMatchObject({
        status: 'matched',
        redemption_id: done.redemption!.id,
        budget_used: '500',
        redemption_count: 1,
        hooks: 1,
        entries: 1,
      });
      expect(await matching.rematchStored(id)).toMatchObject({
        alreadyRewarded: done.redemption!.id,
        redemption: null,
      });
    });

    it('answers the failing rules of a purchase that does not qualify, and waits for a chunk holding its row', async () => {
      const w = await createWorld(ctx.api, {
        merchants: [{}],
        offers: [{ min_spend: 50, cashback_amount: 5 }],
      });
      const token = `chk_${uniq()}`;
      await enroll(w, token);
      const id = await post(w, purchase(w, token));
      const holder = new Client({ connectionString: process.env.DATABASE_URL });
      await holder.connect();
      const matching = ctx.api.app.get(MatchingService);
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT 1 FROM transaction WHERE id = $1 FOR NO KEY UPDATE`, [id]);
        let settled = false;
        const run = matching.rematchStored(id).finally(() => (settled = true));
        await eventually(
          async () => {
            const [w8] = await ctx.db.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%transaction_key%' AND query LIKE '%FOR UPDATE%'`,
            );
            return w8.n > 0 ? true : null;
          },
          're-run waiting for the row lock',
          5_000,
        );
        expect(settled).toBe(false);
        await holder.query('ROLLBACK');
        const done = await run;
        expect(done).toMatchObject({ status: 'unmatched', redemption: null });
        expect(done.evaluations.map((e) => e.evaluation.reasons)).toEqual([['below_min_spend']]);
      } finally {
        await holder.end();
      }
    });
  });
});
