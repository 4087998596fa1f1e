// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-lifecycle-${process.pid}` });

import { MatchingService } from '@app/core';
import { AuthorizationExpiryTimer } from '../../worker/src/lifecycle/authorization-expiry.timer';
import { apiAndWorker, createWorld, DAY, eventually, portalLogin, uniq, World } from '@app/testing';

/** The card lifecycle (authorization, clearing, void): program fields, validation, matching. */
describe('card lifecycle', () => {
  const ctx = apiAndWorker();

  describe('program fields (admin API)', () => {
    it('absent until set (the defaults: clearing, 7 days); set, read back and changed', async () => {
      const created = await ctx.api.http
        .post('/admin/api/v1/institutions')
        .set('Authorization', ctx.op())
        .send({ name: uniq('Bank '), plan: 'growth' })
        .expect(201);
      expect(created.body.program.reward_on).toBeUndefined();
      expect(created.body.program.authorization_expiry_days).toBeUndefined();
      const patched = await ctx.api.http
        .patch(`/admin/api/v1/institutions/${created.body.id}`)
        .set('Authorization', ctx.op())
        .send({ program: { reward_on: 'authorization', authorization_expiry_days: 3 } })
        .expect(200);
      expect(patched.body.program).toMatchObject({
        reward_on: 'authorization',
        authorization_expiry_days: 3,
      });
      const read = await ctx.api.http
        .get(`/admin/api/v1/institutions/${created.body.id}`)
        .set('Authorization', ctx.op())
        .expect(200);
      expect(read.body.program).toMatchObject({
        reward_on: 'authorization',
        authorization_expiry_days: 3,
      });
    });

    it.each([
      [{ reward_on: 'swipe' }, 'reward_on'],
      [{ reward_on: 1 }, 'reward_on'],
      [{ authorization_expiry_days: 0 }, 'authorization_expiry_days'],
      [{ authorization_expiry_days: 46 }, 'authorization_expiry_days'],
      [{ authorization_expiry_days: 1.5 }, 'authorization_expiry_days'],
    ])('rejects %j (400 naming %s)', async (program, field) => {
      const res = await ctx.api.http
        .post('/admin/api/v1/institutions')
        .set('Authorization', ctx.op())
        .send({ name: uniq('Bank '), plan: 'growth', program });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    });
  });

  describe('transaction validation', () => {
    const body = (over: Record<string, unknown>) => ({
      cardholder_token: `chk_${uniq()}`,
      card_token: `ctk_${uniq()}`,
      merchant_identifier: 'DEMO-CA-NOWHERE',
      amount: 25,
      transaction_ref: uniq('ref-'),
      transacted_at: new Date().toISOString(),
      ...over,
    });

    it('accepts the three lifecycle types (single and batch)', async () => {
      const w = await createWorld(ctx.api, { merchants: [{}] });
      for (const over of [
        { transaction_type: 'authorization' },
        { transaction_type: 'clearing', original_transaction_ref: 'auth-1' },
        { transaction_type: 'clearing' },
        { transaction_type: 'authorization_reversal', original_transaction_ref: 'auth-1' },
      ])
        await ctx.api.http
          .post('/api/v1/transactions')
          .set('Authorization', w.auth)
          .send(body(over))
          .expect(202);
      const batch = await ctx.api.http
        .post('/api/v1/transactions/batch')
        .set('Authorization', w.auth)
        .send({
          transactions: [
            body({ transaction_type: 'authorization' }),
            body({ transaction_type: 'clearing', original_transaction_ref: 'auth-2' }),
          ],
        })
        .expect(202);
      expect(batch.body).toMatchObject({ accepted: 2 });
    });

    it.each([
      [
        'a void without original_transaction_ref',
        { transaction_type: 'authorization_reversal' },
        'is required when transaction_type is authorization_reversal',
      ],
      [
        'an authorization naming an original',
        { transaction_type: 'authorization', original_transaction_ref: 'x' },
        'is only allowed when transaction_type is refund, clearing or authorization_reversal',
      ],
    ])('400 for %s', async (_name, over, message) => {
      const w = await createWorld(ctx.api, { merchants: [{}] });
      const res = await ctx.api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send(body(over))
        .expect(400);
      expect(JSON.stringify(res.body)).toContain(message);
      expect(JSON.stringify(res.body)).toContain('original_transaction_ref');
    });
  });

  // ---- matching through the public API and the worker ----

  type RewardOn = 'clearing' | 'authorization';

  /** One merchant, one offer ($5 back on $20 unless overridden), one enrolled cardholder. */
  async function setup(program: Record<string, unknown>, offer: Record<string, unknown> = {}) {
    const w = await createWorld(ctx.api, { program, merchants: [{}], offers: [offer] });
    const token = `chk_${uniq()}`;
    await ctx.api.http
      .post(`/api/v1/offers/${w.offers[0].id}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: token })
      .expect(201);
    const card = `ctk_${uniq()}`;
    const record = (
      type: string,
      amount: number,
      over: Record<string, unknown> = {},
    ): Record<string, unknown> => ({
      cardholder_token: token,
      card_token: card,
      merchant_identifier: w.merchants[0].identifiers[0].value,
      amount,
      transaction_ref: uniq(`${type.slice(0, 4)}-`),
      transacted_at: new Date().toISOString(),
      transaction_type: type,
      ...over,
    });
    /** Posts and waits until matching processed it; the stored status. */
    const send = async (body: Record<string, unknown>, expected = 202) => {
      const res = await ctx.api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send(body);
      expect(res.status).toBe(expected);
      const id = res.body.id as string;
      return eventually(
        async () => {
          const [t] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
          return t && t.status !== 'received' ? (t.status as string) : null;
        },
        `transaction ${id} processed`,
        20_000,
      );
    };
    /** Redemptions by status and webhook deliveries by event, for this cardholder. */
    const counts = async () => {
      const [c] = await ctx.db.query(
        `SELECT count(*) FILTER (WHERE r.status <> 'reversed')::int AS live,
                count(*) FILTER (WHERE r.status = 'reversed')::int AS reversed,
                (SELECT count(*)::int FROM webhook_delivery d JOIN redemption x ON x.id = d.redemption_id
                  WHERE x.institution_id = $1 AND x.cardholder_token = $2 AND d.event = 'redemption.completed') AS completed,
                (SELECT count(*)::int FROM webhook_delivery d JOIN redemption x ON x.id = d.redemption_id
                  WHERE x.institution_id = $1 AND x.cardholder_token = $2 AND d.event = 'redemption.reversed') AS reversed_hooks
           FROM redemption r WHERE r.institution_id = $1 AND r.cardholder_token = $2`,
        [w.institution.id, token],
      );
      return c as { live: number; reversed: number; completed: number; reversed_hooks: number };
    };
    /** The live redemption's record ref and cashback (major units), or null. */
    const live = async () => {
      const rows = await ctx.db.query(
        `SELECT t.transaction_ref AS ref, r.cashback_amount::int AS cashback
           FROM redemption r JOIN transaction t ON t.id = r.transaction_id
          WHERE r.institution_id = $1 AND r.cardholder_token = $2 AND r.status <> 'reversed'`,
        [w.institution.id, token],
      );
      return rows.length ? (rows[0] as { ref: string; cashback: number }) : null;
    };
    const chain = async (authRef: string) => {
      const [c] = await ctx.db.query(
        `SELECT state FROM card_chain WHERE institution_id = $1 AND authorization_ref = $2`,
        [w.institution.id, authRef],
      );
      return c?.state as string | undefined;
    };
    return { w, token, record, send, counts, live, chain };
  }

  const none = { live: 0, reversed: 0, completed: 0, reversed_hooks: 0 };
  const one = { live: 1, reversed: 0, completed: 1, reversed_hooks: 0 };
  const undone = { live: 0, reversed: 1, completed: 1, reversed_hooks: 1 };

  describe('authorization → clearing', () => {
    it('reward_on=clearing: the authorization is recorded, the clearing is rewarded', async () => {
      const s = await setup({});
      const auth = s.record('authorization', 30);
      expect(await s.send(auth)).toBe('unmatched');
      expect(await s.counts()).toEqual(none);
      expect(await s.chain(auth.transaction_ref as string)).toBe('authorized');
      const clearing = s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref });
      expect(await s.send(clearing)).toBe('matched');
      expect(await s.counts()).toEqual(one);
      expect((await s.live())!.ref).toBe(clearing.transaction_ref);
      expect(await s.chain(auth.transaction_ref as string)).toBe('cleared');
    });

    it('reward_on=clearing: the cleared amount decides (authorized enough, cleared too little)', async () => {
      const s = await setup({});
      const auth = s.record('authorization', 30);
      await s.send(auth);
      expect(
        await s.send(s.record('clearing', 15, { original_transaction_ref: auth.transaction_ref })),
      ).toBe('unmatched');
      expect(await s.counts()).toEqual(none);
    });

    it('reward_on=authorization: rewarded at the swipe; the clearing confirms it', async () => {
      const s = await setup({ reward_on: 'authorization' });
      const auth = s.record('authorization', 30);
      expect(await s.send(auth)).toBe('matched');
      expect(await s.counts()).toEqual(one);
      const clearing = s.record('clearing', 35, { original_transaction_ref: auth.transaction_ref });
      expect(await s.send(clearing)).toBe('matched');
      expect(await s.counts()).toEqual(one);
      expect((await s.live())!.ref).toBe(auth.transaction_ref);
    });

    it('reward_on=authorization: a cleared amount that no longer qualifies reverses it', async () => {
      const s = await setup({ reward_on: 'authorization' });
      const auth = s.record('authorization', 30);
      await s.send(auth);
      expect(
        await s.send(s.record('clearing', 15, { original_transaction_ref: auth.transaction_ref })),
      ).toBe('unmatched');
      expect(await s.counts()).toEqual(undone);
    });

    it('reward_on=authorization: a different percent reward reverses it and issues the new one', async () => {
      const s = await setup(
        { reward_on: 'authorization' },
        { reward_type: 'percent', cashback_percent: 10, cashback_amount: 100 },
      );
      const auth = s.record('authorization', 30);
      await s.send(auth);
      expect(await s.live()).toEqual({ ref: auth.transaction_ref, cashback: 300 });
      const clearing = s.record('clearing', 50, { original_transaction_ref: auth.transaction_ref });
      expect(await s.send(clearing)).toBe('matched');
      expect(await s.counts()).toEqual({ live: 1, reversed: 1, completed: 2, reversed_hooks: 1 });
      expect(await s.live()).toEqual({ ref: clearing.transaction_ref, cashback: 500 });
    });
  });

  describe('voids', () => {
    it('reward_on=authorization: a void reverses the redemption', async () => {
      const s = await setup({ reward_on: 'authorization' });
      const auth = s.record('authorization', 30);
      await s.send(auth);
      const voided = s.record('authorization_reversal', 30, {
        original_transaction_ref: auth.transaction_ref,
      });
      expect(await s.send(voided)).toBe('unmatched');
      expect(await s.counts()).toEqual(undone);
      expect(await s.chain(auth.transaction_ref as string)).toBe('voided');
    });

    it('reward_on=clearing: a void leaves nothing behind; a later clearing still decides', async () => {
      const s = await setup({});
      const auth = s.record('authorization', 30);
      await s.send(auth);
      await s.send(
        s.record('authorization_reversal', 30, { original_transaction_ref: auth.transaction_ref }),
      );
      expect(await s.counts()).toEqual(none);
      expect(await s.chain(auth.transaction_ref as string)).toBe('voided');
      await s.send(s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref }));
      expect(await s.counts()).toEqual(one);
    });

    it.each(['clearing', 'authorization'] as RewardOn[])(
      'reward_on=%s: a void after the clearing changes nothing',
      async (rewardOn) => {
        const s = await setup({ reward_on: rewardOn });
        const auth = s.record('authorization', 30);
        await s.send(auth);
        await s.send(s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref }));
        await s.send(
          s.record('authorization_reversal', 30, {
            original_transaction_ref: auth.transaction_ref,
          }),
        );
        expect(await s.counts()).toEqual(one);
        expect(await s.chain(auth.transaction_ref as string)).toBe('cleared');
      },
    );
  });

  describe('expiry', () => {
    it('reward_on=authorization: no clearing within authorization_expiry_days reverses it, once', async () => {
      const s = await setup({ reward_on: 'authorization', authorization_expiry_days: 1 });
      const auth = s.record('authorization', 30);
      await s.send(auth);
      expect(await s.counts()).toEqual(one);
      const timer = ctx.worker.get(AuthorizationExpiryTimer);
      // Not yet: half a day later.
      await timer.pass(new Date(Date.now() + DAY / 2));
      expect(await s.chain(auth.transaction_ref as string)).toBe('authorized');
      expect(await s.counts()).toEqual(one);
      const first = await timer.pass(new Date(Date.now() + 1.5 * DAY));
      expect(first.reversed).toBeGreaterThanOrEqual(1);
      expect(await s.chain(auth.transaction_ref as string)).toBe('expired');
      expect(await s.counts()).toEqual(undone);
      await timer.pass(new Date(Date.now() + 1.5 * DAY));
      expect(await s.counts()).toEqual(undone);
      // A clearing after the expiry still moved money: it decides.
      await s.send(s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref }));
      expect(await s.counts()).toEqual({ live: 1, reversed: 1, completed: 2, reversed_hooks: 1 });
    });

    it('reward_on=authorization: an authorization that arrives already expired is never rewarded; its clearing decides', async () => {
      const s = await setup(
        { reward_on: 'authorization', authorization_expiry_days: 1 },
        { starts_at: new Date(Date.now() - 10 * DAY).toISOString() },
      );
      await ctx.db.query(
        `UPDATE cardholder_offer SET added_at = now() - interval '5 days' WHERE cardholder_token = $1`,
        [s.token],
      );
      // Swiped two days ago, sent only now: past its one-day expiry, so no reward and no webhook
      // (rewarding it would send redemption.completed, then redemption.reversed a minute later).
      const auth = s.record('authorization', 30, {
        transacted_at: new Date(Date.now() - 2 * DAY).toISOString(),
      });
      const simulated = await ctx.api.http
        .post('/api/v1/transactions/simulate')
        .set('Authorization', s.w.auth)
        .send(auth)
        .expect(200);
      expect(simulated.body).toMatchObject({
        matched: false,
        lifecycle: { action: 'ignore', outcome: 'no_change' },
      });
      expect(await s.send(auth)).toBe('unmatched');
      expect(await s.chain(auth.transaction_ref as string)).toBe('expired');
      expect(await s.counts()).toEqual(none);
      await s.send(s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref }));
      expect(await s.counts()).toEqual(one);
    });

    it('reward_on=clearing: an expired authorization had nothing to reverse', async () => {
      const s = await setup({ authorization_expiry_days: 1 });
      const auth = s.record('authorization', 30);
      await s.send(auth);
      await ctx.worker.get(AuthorizationExpiryTimer).pass(new Date(Date.now() + 1.5 * DAY));
      expect(await s.chain(auth.transaction_ref as string)).toBe('expired');
      expect(await s.counts()).toEqual(none);
    });
  });

  describe('order and repetition', () => {
    it.each(['clearing', 'authorization'] as RewardOn[])(
      'reward_on=%s: a clearing before its authorization decides; the late authorization changes nothing',
      async (rewardOn) => {
        const s = await setup({ reward_on: rewardOn });
        const authRef = uniq('auth-');
        expect(await s.send(s.record('clearing', 30, { original_transaction_ref: authRef }))).toBe(
          'matched',
        );
        expect(await s.counts()).toEqual(one);
        expect(await s.send(s.record('authorization', 30, { transaction_ref: authRef }))).toBe(
          'unmatched',
        );
        expect(await s.counts()).toEqual(one);
        expect(await s.chain(authRef)).toBe('cleared');
      },
    );

    it.each(['clearing', 'authorization'] as RewardOn[])(
      'reward_on=%s: the same authorization and clearing twice are one reward',
      async (rewardOn) => {
        const s = await setup({ reward_on: rewardOn });
        const auth = s.record('authorization', 30);
        const clearing = s.record('clearing', 30, {
          original_transaction_ref: auth.transaction_ref,
        });
        await s.send(auth);
        await s.send(auth, 200);
        await s.send(clearing);
        await s.send(clearing, 200);
        expect(await s.counts()).toEqual(one);
      },
    );

    it('reward_on=authorization: authorization and clearing in one batch are one reward, one webhook', async () => {
      const s = await setup({ reward_on: 'authorization' });
      const auth = s.record('authorization', 30);
      const clearing = s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref });
      await ctx.api.http
        .post('/api/v1/transactions/batch')
        .set('Authorization', s.w.auth)
        .send({ transactions: [clearing, auth] })
        .expect(202);
      await eventually(
        async () => ((await s.chain(auth.transaction_ref as string)) === 'cleared' ? true : null),
        'chain cleared',
        20_000,
      );
      await eventually(
        async () =>
          (
            await ctx.db.query(
              `SELECT 1 FROM transaction WHERE institution_id = $1 AND status = 'received'`,
              [s.w.institution.id],
            )
          ).length === 0 || null,
        'batch processed',
        20_000,
      );
      expect(await s.counts()).toEqual(one);
    });

    it.each(['clearing', 'authorization'] as RewardOn[])(
      'reward_on=%s: twelve clearings of one authorization matched in concurrent chunks: one reward',
      async (rewardOn) => {
        const s = await setup({ reward_on: rewardOn }, { max_redemptions_per_cardholder: 20 });
        const auth = s.record('authorization', 30);
        await s.send(auth);
        const clearings = Array.from({ length: 12 }, (_, i) =>
          s.record('clearing', 30 + i, { original_transaction_ref: auth.transaction_ref }),
        );
        await ctx.api.http
          .post('/api/v1/transactions/batch')
          .set('Authorization', s.w.auth)
          .send({ transactions: clearings })
          .expect(202);
        const ids: string[] = (
          await ctx.db.query(
            `SELECT id FROM transaction WHERE institution_id = $1 AND kind = 'clearing'`,
            [s.w.institution.id],
          )
        ).map((r: { id: string }) => r.id);
        expect(ids).toHaveLength(12);
        // One chunk per clearing, all at once (and the worker's own chunk, whichever claims first).
        const matching = ctx.api.app.get(MatchingService);
        await Promise.all(ids.map((id) => matching.matchChunk([id])));
        await eventually(
          async () =>
            (
              await ctx.db.query(
                `SELECT 1 FROM transaction WHERE institution_id = $1 AND status = 'received'`,
                [s.w.institution.id],
              )
            ).length === 0 || null,
          'clearings processed',
          20_000,
        );
        // The first clearing decides (reward_on=authorization: confirms, the fixed reward is the
        // same); every later one confirms it on the chain's growing total: the same fixed reward,
        // kept.
        expect(await s.counts()).toEqual(one);
      },
    );

    it('a CSV upload (portal) takes authorizations and clearings like the API', async () => {
      const s = await setup({});
      const portal = await portalLogin(ctx.api, s.w.admin);
      const auth = s.record('authorization', 30);
      const clearing = s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref });
      const columns = [
        'cardholder_token',
        'card_token',
        'merchant_identifier',
        'amount',
        'transaction_ref',
        'transacted_at',
        'transaction_type',
        'original_transaction_ref',
      ];
      const csv = [
        columns.join(','),
        ...[auth, clearing].map((r) => columns.map((c) => String(r[c] ?? '')).join(',')),
      ].join('\n');
      const res = await portal.agent
        .post('/portal/api/transactions/uploads')
        .set('X-CSRF-Token', portal.csrf)
        .attach('file', Buffer.from(csv + '\n'), 'card.csv')
        .expect(202);
      expect(
        await eventually(
          async () => {
            const r = await portal.agent
              .get(`/portal/api/transactions/uploads/${res.body.id}`)
              .expect(200);
            return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
          },
          'upload finished',
          60_000,
        ),
      ).toMatchObject({ status: 'completed', accepted: 2 });
      const rows = await ctx.db.query(
        `SELECT id, kind, original_transaction_ref AS original FROM transaction
          WHERE institution_id = $1 ORDER BY kind`,
        [s.w.institution.id],
      );
      expect(
        rows.map((r: { kind: string; original: string | null }) => [r.kind, r.original]),
      ).toEqual([
        ['authorization', null],
        ['clearing', auth.transaction_ref],
      ]);
      // Also handed to matching here (a chunk as the worker runs it; whichever claims the rows
      // first matches them): run alone, this file's worker does not always get the CSV import's
      // hand-off in time (portal-uploads.e2e covers that path).
      await ctx.api.app.get(MatchingService).matchChunk(rows.map((r: { id: string }) => r.id));
      await eventually(
        async () => ((await s.chain(auth.transaction_ref as string)) === 'cleared' ? true : null),
        'chain cleared',
        20_000,
      );
      await eventually(async () => ((await s.counts()).live === 1 ? true : null), 'reward', 20_000);
      expect(await s.counts()).toEqual(one);
    });

    it.each(['clearing', 'authorization'] as RewardOn[])(
      'reward_on=%s: a clearing whose merchant identifier does not resolve is the authorization’s purchase',
      async (rewardOn) => {
        const s = await setup({ reward_on: rewardOn });
        const auth = s.record('authorization', 30);
        await s.send(auth);
        const clearing = s.record('clearing', 30, {
          original_transaction_ref: auth.transaction_ref,
          merchant_identifier: uniq('UNKNOWN-'),
        });
        expect(await s.send(clearing)).toBe('matched');
        expect(await s.counts()).toEqual(one);
        // Stored at that merchant too (reporting and the cardholder's purchase history read it).
        const [t] = await ctx.db.query(
          `SELECT merchant_id FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
          [s.w.institution.id, clearing.transaction_ref],
        );
        expect(t.merchant_id).toBe(s.w.merchants[0].id);
      },
    );

    it.each(['clearing', 'authorization'] as RewardOn[])(
      'reward_on=%s: a clearing or void naming a purchase (not an authorization) is recorded, never rewarded',
      async (rewardOn) => {
        const s = await setup({ reward_on: rewardOn }, { max_redemptions_per_cardholder: 5 });
        const purchase = s.record('purchase', 30);
        expect(await s.send(purchase)).toBe('matched');
        const named = { original_transaction_ref: purchase.transaction_ref };
        const simulated = await ctx.api.http
          .post('/api/v1/transactions/simulate')
          .set('Authorization', s.w.auth)
          .send(s.record('clearing', 30, named))
          .expect(200);
        expect(simulated.body).toMatchObject({
          matched: false,
          lifecycle: { outcome: 'no_change' },
        });
        expect(await s.send(s.record('clearing', 30, named))).toBe('unmatched');
        expect(await s.send(s.record('authorization_reversal', 30, named))).toBe('unmatched');
        expect(await s.counts()).toEqual(one);
      },
    );

    it('a clearing without original_transaction_ref is a purchase', async () => {
      const s = await setup({ reward_on: 'authorization' });
      const clearing = s.record('clearing', 30);
      expect(await s.send(clearing)).toBe('matched');
      const [t] = await ctx.db.query(
        `SELECT kind FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
        [s.w.institution.id, clearing.transaction_ref],
      );
      expect(t.kind).toBe('purchase');
      expect(await s.counts()).toEqual(one);
    });
  });

  describe('a second clearing of the same authorization', () => {
    const tenPercent = { reward_type: 'percent', cashback_percent: 10, cashback_amount: 15 };
    const reversedOnes = async (s: { w: World; token: string }) =>
      ctx.db.query(
        `SELECT r.cashback_amount::int AS cashback, r.reversal_reason, r.reversal_transaction_ref
           FROM redemption r WHERE r.institution_id = $1 AND r.cardholder_token = $2 AND r.status = 'reversed'`,
        [s.w.institution.id, s.token],
      );

    it.each(['clearing', 'authorization'] as RewardOn[])(
      'reward_on=%s: 10%% capped at 15, clearings of 40 then 60: the reward of 4 is reversed, one of 10 is issued on the second',
      async (rewardOn) => {
        const s = await setup({ reward_on: rewardOn }, tenPercent);
        const auth = s.record('authorization', 40);
        await s.send(auth);
        const first = s.record('clearing', 40, { original_transaction_ref: auth.transaction_ref });
        expect(await s.send(first)).toBe('matched');
        expect((await s.live())!.cashback).toBe(400);
        const second = s.record('clearing', 60, {
          original_transaction_ref: auth.transaction_ref,
        });
        expect(await s.send(second)).toBe('matched');
        expect(await s.counts()).toEqual({ live: 1, reversed: 1, completed: 2, reversed_hooks: 1 });
        expect(await s.live()).toEqual({ ref: second.transaction_ref, cashback: 1000 });
        expect(await reversedOnes(s)).toEqual([
          {
            cashback: 400,
            reversal_reason: 'clearing_changed',
            reversal_transaction_ref: second.transaction_ref,
          },
        ]);
        const [chain] = await ctx.db.query(
          `SELECT cleared_amount::float8 AS cleared, clearing_ref FROM card_chain
            WHERE institution_id = $1 AND authorization_ref = $2`,
          [s.w.institution.id, auth.transaction_ref],
        );
        expect(chain).toEqual({ cleared: 100, clearing_ref: first.transaction_ref });
      },
    );

    it('a total that earns the same reward keeps it (no reversal, no second webhook)', async () => {
      const s = await setup({}, tenPercent);
      const auth = s.record('authorization', 200);
      await s.send(auth);
      const first = s.record('clearing', 200, { original_transaction_ref: auth.transaction_ref });
      await s.send(first);
      expect(
        await s.send(s.record('clearing', 100, { original_transaction_ref: auth.transaction_ref })),
      ).toBe('matched');
      expect(await s.counts()).toEqual(one);
      expect(await s.live()).toEqual({ ref: first.transaction_ref, cashback: 1500 });
    });

    it('a chain that earned nothing at its first clearing earns on the total', async () => {
      const s = await setup({}, { min_spend: 50 });
      const auth = s.record('authorization', 30);
      await s.send(auth);
      await s.send(s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref }));
      expect(await s.counts()).toEqual(none);
      const second = s.record('clearing', 25, { original_transaction_ref: auth.transaction_ref });
      expect(await s.send(second)).toBe('matched');
      expect(await s.counts()).toEqual(one);
      expect((await s.live())!.ref).toBe(second.transaction_ref);
    });

    it('goals: cumulative_spend counts the added amount; purchase_count nothing more', async () => {
      const progress = async (s: { w: World; token: string }) =>
        (
          await ctx.api.http
            .get('/api/v1/offers')
            .query({ cardholder_token: s.token })
            .set('Authorization', s.w.auth)
            .expect(200)
        ).body.offers.find((o: { id: string }) => o.id === s.w.offers[0].id)?.progress?.current;
      const spend = await setup(
        {},
        { min_spend: 10, goal: { type: 'cumulative_spend', target: 100 } },
      );
      const a = spend.record('authorization', 60);
      await spend.send(a);
      await spend.send(
        spend.record('clearing', 60, { original_transaction_ref: a.transaction_ref }),
      );
      expect(await progress(spend)).toBe(60);
      const more = spend.record('clearing', 50, { original_transaction_ref: a.transaction_ref });
      expect(await spend.send(more)).toBe('matched');
      expect(await spend.counts()).toEqual(one);
      expect((await spend.live())!.ref).toBe(more.transaction_ref);

      const count = await setup({}, { min_spend: 10, goal: { type: 'purchase_count', target: 2 } });
      const b = count.record('authorization', 30);
      await count.send(b);
      await count.send(
        count.record('clearing', 30, { original_transaction_ref: b.transaction_ref }),
      );
      expect(await progress(count)).toBe(1);
      await count.send(
        count.record('clearing', 30, { original_transaction_ref: b.transaction_ref }),
      );
      expect(await progress(count)).toBe(1);
      expect(await count.counts()).toEqual(none);
    });

    it('the hold runs from the first clearing, also for the reward reissued on the second', async () => {
      const s = await setup({ settlement_hold_days: 2 }, tenPercent);
      const auth = s.record('authorization', 40);
      await s.send(auth);
      await s.send(s.record('clearing', 40, { original_transaction_ref: auth.transaction_ref }));
      // As if the first clearing were three days old.
      await ctx.db.query(
        `UPDATE card_chain SET cleared_at = now() - interval '3 days'
          WHERE institution_id = $1 AND authorization_ref = $2`,
        [s.w.institution.id, auth.transaction_ref],
      );
      const second = s.record('clearing', 60, { original_transaction_ref: auth.transaction_ref });
      await s.send(second);
      await ctx.api.http
        .post('/admin/api/v1/settlements/run')
        .set('Authorization', ctx.op())
        .send({})
        .expect(200);
      expect(
        await ctx.db.query(
          `SELECT e.status FROM settlement_entry e JOIN redemption r ON r.id = e.redemption_id
            WHERE r.institution_id = $1 AND r.transaction_ref = $2`,
          [s.w.institution.id, second.transaction_ref],
        ),
      ).toEqual([{ status: 'settled' }]);
    });
  });

  describe('purchase history (audiences, personalization)', () => {
    it('a cleared card purchase is the cardholder’s purchase: a `new` audience offer pays once', async () => {
      const s = await setup(
        {},
        {
          max_redemptions_per_cardholder: 5,
          qualification: { audience: 'new', lookback_days: 90 },
        },
      );
      const first = s.record('authorization', 30);
      await s.send(first);
      await s.send(s.record('clearing', 30, { original_transaction_ref: first.transaction_ref }));
      expect(await s.counts()).toEqual(one);
      // A week's later card purchase at the same merchant: no longer new.
      const second = s.record('authorization', 30);
      await s.send(second);
      expect(
        await s.send(
          s.record('clearing', 30, { original_transaction_ref: second.transaction_ref }),
        ),
      ).toBe('unmatched');
      expect(await s.counts()).toEqual(one);
    });

    it('a voided swipe is not a purchase: the cardholder is still new', async () => {
      const s = await setup({}, { qualification: { audience: 'new', lookback_days: 90 } });
      const voided = s.record('authorization', 30);
      await s.send(voided);
      await s.send(
        s.record('authorization_reversal', 30, {
          original_transaction_ref: voided.transaction_ref,
        }),
      );
      const auth = s.record('authorization', 30);
      await s.send(auth);
      await s.send(s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref }));
      expect(await s.counts()).toEqual(one);
    });
  });

  describe('refunds of a chain', () => {
    it.each([
      ['clearing', 'the clearing'],
      ['clearing', 'the authorization'],
      ['authorization', 'the clearing'],
      ['authorization', 'the authorization'],
    ] as [RewardOn, string][])(
      'reward_on=%s: a refund naming %s reverses as a refund of a purchase does',
      async (rewardOn, named) => {
        const s = await setup({ reward_on: rewardOn });
        const auth = s.record('authorization', 30);
        const clearing = s.record('clearing', 30, {
          original_transaction_ref: auth.transaction_ref,
        });
        await s.send(auth);
        await s.send(clearing);
        const ref = named === 'the clearing' ? clearing.transaction_ref : auth.transaction_ref;
        // A partial refund that leaves enough changes nothing; the next one reverses.
        expect(await s.send(s.record('refund', 5, { original_transaction_ref: ref }))).toBe(
          'matched',
        );
        expect(await s.counts()).toEqual(one);
        await s.send(s.record('refund', 10, { original_transaction_ref: ref }));
        expect(await s.counts()).toEqual(undone);
      },
    );

    it('a refund before the clearing is netted when the clearing decides', async () => {
      const s = await setup({});
      const auth = s.record('authorization', 30);
      await s.send(auth);
      await s.send(s.record('refund', 15, { original_transaction_ref: auth.transaction_ref }));
      await s.send(s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref }));
      expect(await s.counts()).toEqual(none);
    });
  });

  describe('goal offers', () => {
    it('reward_on=authorization: a card purchase counts toward a goal once, at its clearing; a voided one never', async () => {
      const s = await setup(
        { reward_on: 'authorization' },
        { min_spend: 10, goal: { type: 'purchase_count', target: 2 } },
      );
      const progress = async () =>
        (
          await ctx.api.http
            .get('/api/v1/offers')
            .query({ cardholder_token: s.token })
            .set('Authorization', s.w.auth)
            .expect(200)
        ).body.offers.find((o: { id: string }) => o.id === s.w.offers[0].id)?.progress?.current;
      const voided = s.record('authorization', 30);
      await s.send(voided);
      await s.send(
        s.record('authorization_reversal', 30, {
          original_transaction_ref: voided.transaction_ref,
        }),
      );
      expect(await progress()).toBe(0);
      const first = s.record('authorization', 31);
      await s.send(first);
      expect(await progress()).toBe(0);
      await s.send(s.record('clearing', 31, { original_transaction_ref: first.transaction_ref }));
      expect(await progress()).toBe(1);
      const second = s.record('authorization', 32);
      await s.send(second);
      expect(await progress()).toBe(1);
      expect(await s.counts()).toEqual(none);
      // The second clearing completes the goal: one reward, on the clearing.
      await s.send(s.record('clearing', 32, { original_transaction_ref: second.transaction_ref }));
      expect(await s.counts()).toEqual(one);
    });
  });

  describe('simulate', () => {
    const simulate = async (s: { w: { auth: string } }, body: Record<string, unknown>) =>
      (
        await ctx.api.http
          .post('/api/v1/transactions/simulate')
          .set('Authorization', s.w.auth)
          .send(body)
          .expect(200)
      ).body;

    it('reward_on=clearing: an authorization would match at clearing (nothing now)', async () => {
      const s = await setup({});
      const res = await simulate(s, s.record('authorization', 30));
      expect(res.matched).toBe(false);
      expect(res.winner).toMatchObject({ offer_id: s.w.offers[0].id });
      expect(res.lifecycle).toEqual({
        reward_on: 'clearing',
        chain_state: 'none',
        action: 'record',
        outcome: 'would_match_at_clearing',
      });
      expect((await simulate(s, s.record('authorization', 10))).lifecycle.outcome).toBe('no_match');
    });

    it('reward_on=authorization: an authorization matches now; its void would reverse it', async () => {
      const s = await setup({ reward_on: 'authorization' });
      const auth = s.record('authorization', 30);
      expect(await simulate(s, auth)).toMatchObject({
        matched: true,
        lifecycle: { reward_on: 'authorization', action: 'decide', outcome: 'match' },
      });
      await s.send(auth);
      expect(
        (
          await simulate(
            s,
            s.record('authorization_reversal', 30, {
              original_transaction_ref: auth.transaction_ref,
            }),
          )
        ).lifecycle,
      ).toEqual({
        reward_on: 'authorization',
        chain_state: 'authorized',
        action: 'reverse',
        outcome: 'would_reverse',
      });
      expect(await s.counts()).toEqual(one);
    });

    it('reward_on=authorization: a clearing reconsiders the authorization’s redemption as matching does', async () => {
      const s = await setup({ reward_on: 'authorization' });
      const auth = s.record('authorization', 30);
      await s.send(auth);
      const keeps = await simulate(
        s,
        s.record('clearing', 35, { original_transaction_ref: auth.transaction_ref }),
      );
      expect(keeps).toMatchObject({
        matched: true,
        winner: { offer_id: s.w.offers[0].id },
        lifecycle: { chain_state: 'authorized', action: 'confirm', outcome: 'match' },
      });
      const drops = await simulate(
        s,
        s.record('clearing', 15, { original_transaction_ref: auth.transaction_ref }),
      );
      expect(drops).toMatchObject({
        matched: false,
        lifecycle: { action: 'confirm', outcome: 'no_match' },
      });
      expect(drops.evaluations[0].reasons).toEqual(['below_min_spend']);
    });

    it('reward_on=authorization: the reconsidered redemption gives its budget back, as matching does', async () => {
      // The budget holds exactly one reward ($5, no fee): the authorization's spent it all.
      const s = await setup({ reward_on: 'authorization' }, { budget_total: 5 });
      const auth = s.record('authorization', 30);
      await s.send(auth);
      const clearing = s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref });
      const res = await simulate(s, clearing);
      expect(res.evaluations[0].reasons).toEqual([]);
      expect(res).toMatchObject({
        matched: true,
        lifecycle: { action: 'confirm', outcome: 'match' },
      });
      // And matching agrees: the clearing keeps the one redemption.
      await s.send(clearing);
      expect(await s.counts()).toEqual(one);
    });

    it.each([
      ['clearing', 'the clearing'],
      ['clearing', 'the authorization'],
      ['authorization', 'the clearing'],
      ['authorization', 'the authorization'],
    ] as [RewardOn, string][])(
      'reward_on=%s: a refund naming %s finds the chain’s redemption and reverses as matching decides',
      async (rewardOn, named) => {
        const s = await setup({ reward_on: rewardOn });
        const auth = s.record('authorization', 30);
        const clearing = s.record('clearing', 30, {
          original_transaction_ref: auth.transaction_ref,
        });
        await s.send(auth);
        await s.send(clearing);
        const ref = named === 'the clearing' ? clearing.transaction_ref : auth.transaction_ref;
        const [{ id: redemptionId }] = await ctx.db.query(
          `SELECT id FROM redemption WHERE offer_id = $1 AND status <> 'reversed'`,
          [s.w.offers[0].id],
        );
        const refund = (amount: number) =>
          s.record('refund', amount, { original_transaction_ref: ref });
        const keeps = refund(5);
        expect((await simulate(s, keeps)).refund).toEqual({
          original_found: true,
          redemption_id: redemptionId,
          would_reverse: false,
        });
        await s.send(keeps);
        expect(await s.counts()).toEqual(one);
        // $25 of the cleared $30 left: another $10 takes it below min_spend ($20).
        const reverses = refund(10);
        expect((await simulate(s, reverses)).refund).toEqual({
          original_found: true,
          redemption_id: redemptionId,
          would_reverse: true,
        });
        await s.send(reverses);
        expect(await s.counts()).toEqual(undone);
      },
    );

    it('a refund naming a chain’s authorization takes back what its clearing counted toward a goal, as matching does', async () => {
      const s = await setup({}, { min_spend: 10, goal: { type: 'purchase_count', target: 2 } });
      const chains = [s.record('authorization', 30), s.record('authorization', 30)];
      for (const auth of chains) {
        await s.send(auth);
        await s.send(s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref }));
      }
      expect(await s.counts()).toEqual(one);
      const [{ id: redemptionId }] = await ctx.db.query(
        `SELECT id FROM redemption WHERE offer_id = $1`,
        [s.w.offers[0].id],
      );
      const refund = s.record('refund', 30, {
        original_transaction_ref: chains[0].transaction_ref,
      });
      expect((await simulate(s, refund)).refund).toEqual({
        original_found: true,
        redemption_id: null,
        would_reverse: false,
        goals: [
          {
            offer_id: s.w.offers[0].id,
            cardholder_offer_id: expect.any(String),
            unit: 'purchases',
            takes_back: 1,
            redemption_id: redemptionId,
            would_reverse: true,
          },
        ],
      });
      await s.send(refund);
      expect(await s.counts()).toEqual(undone);
    });

    it('a purchase has no lifecycle field', async () => {
      const s = await setup({});
      expect((await simulate(s, s.record('purchase', 30))).lifecycle).toBeUndefined();
    });
  });

  describe('settlement', () => {
    const settle = (asOf: Date) =>
      ctx.api.http
        .post('/admin/api/v1/settlements/run')
        .set('Authorization', ctx.op())
        .send({ as_of: asOf.toISOString() })
        .expect(200);
    const status = async (institutionId: string) =>
      (
        await ctx.db.query(`SELECT status FROM settlement_entry WHERE institution_id = $1`, [
          institutionId,
        ])
      ).map((r: { status: string }) => r.status);

    it('a redemption made at authorization settles only after its clearing, the hold counting from it', async () => {
      const s = await setup({ reward_on: 'authorization', settlement_hold_days: 2 });
      const auth = s.record('authorization', 30);
      await s.send(auth);
      // As if the swipe were three days old: past the hold, but not cleared.
      await ctx.db.query(
        `UPDATE settlement_entry SET created_at = now() - interval '3 days' WHERE institution_id = $1`,
        [s.w.institution.id],
      );
      await settle(new Date());
      expect(await status(s.w.institution.id)).toEqual(['pending']);
      await s.send(s.record('clearing', 30, { original_transaction_ref: auth.transaction_ref }));
      await settle(new Date(Date.now() + DAY));
      expect(await status(s.w.institution.id)).toEqual(['pending']);
      await settle(new Date(Date.now() + 2 * DAY + 60_000));
      expect(await status(s.w.institution.id)).toEqual(['settled']);
    });
  });
});
