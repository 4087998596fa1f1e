// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-holdout-matching-${process.pid}` });

import { HoldoutKeys } from '@app/core';
import { inHoldout } from '@app/domain';
import { apiAndWorker, createWorld, eventually, uniq, World } from '@app/testing';

/** Matching never rewards a held-out cardholder for the offer; simulate says `holdout` (docs/lift.md). */
describe('holdouts in matching and simulate', () => {
  const ctx = apiAndWorker();

  /** A token in the offer's holdout and one outside it, by the documented rule. */
  const pick = (w: World, offerId: string, bps: number) => {
    const key = ctx.api.app.get(HoldoutKeys, { strict: false }).of(w.institution.id);
    let inside: string | undefined;
    let outside: string | undefined;
    for (let i = 0; !inside || !outside; i++) {
      const t = uniq(`hm-${i}-`);
      if (inHoldout(key, offerId, t, bps)) inside ??= t;
      else outside ??= t;
    }
    return { inside, outside };
  };

  const event = (w: World, token: string) => ({
    cardholder_token: token,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: w.merchants[0].identifiers[0].value,
    amount: 25,
    transaction_ref: uniq('ref-'),
    transacted_at: new Date(Date.now() + 1000).toISOString(),
  });

  it('a held-out cardholder, even enrolled, is never rewarded; simulate: no_match, holdout first', async () => {
    const w = await createWorld(ctx.api, {
      merchants: [{}],
      offers: [{ holdout_percent: 50, min_spend: 20, cashback_amount: 5 }],
    });
    const offer = w.offers[0].id;
    const { inside, outside } = pick(w, offer, 5000);
    // The add refuses a held-out cardholder; an enrollment written another way must not pay either.
    await ctx.db.query(
      `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, added_at)
       VALUES ($1, $2, $3, now() - interval '1 hour')`,
      [w.institution.id, offer, inside],
    );
    await ctx.api.http
      .post(`/api/v1/offers/${offer}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: outside })
      .expect(201);

    const simulate = async (token: string) =>
      (
        await ctx.api.http
          .post('/api/v1/transactions/simulate')
          .set('Authorization', w.auth)
          .send(event(w, token))
          .expect(200)
      ).body;
    const held = await simulate(inside);
    expect(held.matched).toBe(false);
    const heldEval = held.evaluations.find((e: { offer_id: string }) => e.offer_id === offer);
    expect(heldEval).toMatchObject({ outcome: 'no_match' });
    expect(heldEval.reasons[0]).toBe('holdout');
    expect((await simulate(outside)).matched).toBe(true);

    const post = async (token: string) =>
      (
        await ctx.api.http
          .post('/api/v1/transactions')
          .set('Authorization', w.auth)
          .send(event(w, token))
          .expect(202)
      ).body.id as string;
    const processed = (id: string) =>
      eventually(
        async () => {
          const [t] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
          return t && t.status !== 'received' ? (t.status as string) : null;
        },
        `transaction ${id} processed`,
        30_000,
      );
    const heldId = await post(inside);
    const outId = await post(outside);
    expect(await processed(heldId)).toBe('unmatched');
    expect(await processed(outId)).toBe('matched');
    const redemptions = await ctx.db.query(
      `SELECT cardholder_token FROM redemption WHERE offer_id = $1`,
      [offer],
    );
    expect(redemptions).toEqual([{ cardholder_token: outside }]);
  });
});
