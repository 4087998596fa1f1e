// Own BullMQ prefix: the posts here enqueue matching jobs that no worker takes (claims match them).
Object.assign(process.env, { QUEUE_PREFIX: `e2e-claims-${process.pid}` });

import { DataSource } from 'typeorm';
import { CardholderErasureService, HoldoutKeys, MatchingService } from '@app/core';
import { DAY_MS, inHoldout } from '@app/domain';
import { QUEUES } from '@app/queue';
import {
  createWorld,
  enrollBeforePurchase,
  failAuditAppends,
  obliterateQueues,
  startApi,
  TestApi,
  uniq,
  World,
  WorldOptions,
} from '@app/testing';

/**
 * Claims for missing rewards (docs/claims.md): the transaction lookup, every outcome of the
 * decision table, repeats, the operators' decisions and `claim.resolved`, and exactly one
 * redemption per transaction under races. No worker runs: posted transactions stay `received`
 * until a claim (or a test's own matching run) decides them.
 */
describe('claims', () => {
  let api: TestApi;
  let db: DataSource;
  const op = () => `Bearer ${api.operatorToken}`;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
  });
  afterAll(async () => {
    await obliterateQueues(api, [QUEUES.matching]);
    await api.close();
  });

  const SCOPES = ['offers', 'transactions', 'claims'];
  const world = (options: WorldOptions = {}) =>
    createWorld(api, {
      scopes: SCOPES,
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
      ...options,
    });

  async function enroll(w: World, token: string, offer = 0): Promise<void> {
    await enrollBeforePurchase(api, w, token, { offerId: w.offers[offer].id });
  }

  /** Posts a transaction (stored `received`: no worker matches it); answers its ref and id. */
  async function post(
    w: World,
    body: Record<string, unknown>,
  ): Promise<{ ref: string; id: string }> {
    const ref = (body.transaction_ref as string | undefined) ?? uniq('ref-');
    const res = await api.http
      .post('/api/v1/transactions')
      .set('Authorization', w.auth)
      .send({
        card_token: `ctk_${uniq()}`,
        merchant_identifier: w.merchants[0].identifiers[0].value,
        transacted_at: new Date().toISOString(),
        amount: 25,
        ...body,
        transaction_ref: ref,
      });
    expect(res.status).toBe(202);
    return { ref, id: res.body.id };
  }

  const claim = (w: World, body: Record<string, unknown>) =>
    api.http.post('/api/v1/claims').set('Authorization', w.auth).send(body);

  const evidence = (w: World, over: Record<string, unknown> = {}) => ({
    amount: 30,
    currency: 'USD',
    merchant_identifier: w.merchants[0].identifiers[0].value,
    merchant_identifier_type: 'card_acceptor',
    transacted_at: new Date().toISOString(),
    ...over,
  });

  const redemptionsOf = async (w: World, ref: string) =>
    db.query(
      `SELECT r.id, r.offer_id, r.source FROM redemption r JOIN transaction t ON t.id = r.transaction_id
        WHERE t.institution_id = $1 AND t.transaction_ref = $2`,
      [w.institution.id, ref],
    );

  const decide = (id: string, decision: string, note?: string) =>
    api.http
      .post(`/admin/api/v1/claims/${id}/decision`)
      .set('Authorization', op())
      .send({ decision, ...(note ? { note } : {}) });

  describe('the transaction lookup', () => {
    it('answers a stored transaction by its percent-encoded ref, with transactions or claims; 404 otherwise', async () => {
      const w = await world();
      const ref = `ref/${uniq()} #1`;
      const { id } = await post(w, { cardholder_token: uniq('ch-'), transaction_ref: ref });
      const path = `/api/v1/transactions/${encodeURIComponent(ref)}`;
      const res = await api.http.get(path).set('Authorization', w.auth).expect(200);
      expect(res.body).toEqual({
        id,
        transaction_ref: ref,
        transaction_type: 'purchase',
        status: 'received',
        // Resolved when stored, before matching has run.
        merchant: { id: w.merchants[0].id, name: w.merchants[0].name },
        redemption_id: null,
        transacted_at: expect.any(String),
        received_at: expect.any(String),
      });

      for (const scopes of [['claims'], ['transactions']]) {
        const key = await api.http
          .post(`/admin/api/v1/institutions/${w.institution.id}/api-keys`)
          .set('Authorization', op())
          .send({ name: scopes[0], scopes })
          .expect(201);
        await api.http.get(path).set('Authorization', `Bearer ${key.body.key}`).expect(200);
      }
      const reporting = await api.http
        .post(`/admin/api/v1/institutions/${w.institution.id}/api-keys`)
        .set('Authorization', op())
        .send({ name: 'reporting', scopes: ['reporting'] })
        .expect(201);
      const denied = await api.http.get(path).set('Authorization', `Bearer ${reporting.body.key}`);
      expect(denied.status).toBe(403);
      expect(denied.body.error).toBe('insufficient_scope');

      const missing = await api.http
        .get(`/api/v1/transactions/${uniq('nope-')}`)
        .set('Authorization', w.auth);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('transaction_not_found');

      const other = await world();
      const foreign = await api.http.get(path).set('Authorization', other.auth);
      expect(foreign.status).toBe(404);
    });

    it('shows the merchant and the redemption once a claim matched it', async () => {
      const w = await world();
      const ch = uniq('ch-');
      await enroll(w, ch);
      const { ref } = await post(w, { cardholder_token: ch });
      const c = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: ref,
      });
      expect(c.status).toBe(201);
      const res = await api.http
        .get(`/api/v1/transactions/${encodeURIComponent(ref)}`)
        .set('Authorization', w.auth)
        .expect(200);
      expect(res.body).toMatchObject({
        status: 'matched',
        merchant: { id: w.merchants[0].id, name: w.merchants[0].name },
        redemption_id: c.body.redemption_id,
      });
    });
  });

  describe('the claims scope', () => {
    it('is never implied: keys without it (or without any scope list) get 403', async () => {
      for (const scopes of [['offers', 'transactions', 'reporting'], null]) {
        const w = await world({ scopes });
        const res = await claim(w, {
          cardholder_token: uniq('ch-'),
          offer_id: w.offers[0].id,
          transaction_ref: uniq('ref-'),
        });
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('insufficient_scope');
        const list = await api.http.get('/api/v1/claims').set('Authorization', w.auth);
        expect(list.status).toBe(403);
      }
    });
  });

  describe('a stored purchase', () => {
    it('approved: the claim matches a received purchase under lock; the redemption is the claim’s; a repeat answers it unchanged', async () => {
      const w = await world();
      await db.query(
        `UPDATE institution SET webhook_event_types = array_append(webhook_event_types, 'claim.resolved') WHERE id = $1`,
        [w.institution.id],
      );
      const ch = uniq('ch-');
      await enroll(w, ch);
      const { ref, id } = await post(w, { cardholder_token: ch });
      const body = {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: ref,
        note: 'called',
      };
      const res = await claim(w, body);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'approved',
        reasons: [],
        offer_id: w.offers[0].id,
        transaction_ref: ref,
        cardholder_token_masked: `${ch.slice(0, 4)}****${ch.slice(-4)}`,
        redemption_id: expect.any(String),
        source_of_decision: 'rules',
        decided_at: expect.any(String),
        note: 'called',
      });
      const [t] = await db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
      expect(t.status).toBe('matched');
      expect(await redemptionsOf(w, ref)).toEqual([
        { id: res.body.redemption_id, offer_id: w.offers[0].id, source: 'claim' },
      ]);
      const [entry] = await db.query(
        `SELECT status FROM settlement_entry WHERE redemption_id = $1`,
        [res.body.redemption_id],
      );
      expect(entry.status).toBe('pending');
      const events = await db.query(
        `SELECT event FROM webhook_delivery WHERE institution_id = $1 ORDER BY event`,
        [w.institution.id],
      );
      // A claim decided by the rules at once is answered; claim.resolved is for an operator's decision.
      expect(events.map((e: { event: string }) => e.event)).toEqual(['redemption.completed']);
      const [movement] = await db.query(
        `SELECT source FROM statement_movement WHERE redemption_id = $1`,
        [res.body.redemption_id],
      );
      expect(movement.source).toBe('claim');

      const again = await claim(w, { ...body, note: 'second call' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res.body);
      const got = await api.http.get(`/api/v1/claims/${res.body.id}`).set('Authorization', w.auth);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
      const other = await world();
      const foreign = await api.http
        .get(`/api/v1/claims/${res.body.id}`)
        .set('Authorization', other.auth);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toBe('claim_not_found');
    });

    it('already_rewarded: a redemption that existed before the claim, for any offer', async () => {
      const w = await world({ offers: [{ min_spend: 20 }, { min_spend: 20, cashback_amount: 3 }] });
      const ch = uniq('ch-');
      await enroll(w, ch, 0);
      const { ref } = await post(w, { cardholder_token: ch });
      const first = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: ref,
      });
      expect(first.body.status).toBe('approved');
      const second = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[1].id,
        transaction_ref: ref,
      });
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({
        status: 'already_rewarded',
        redemption_id: first.body.redemption_id,
      });
    });

    it('rewarded_other_offer: matching run again gives the purchase to the better offer', async () => {
      const w = await world({
        offers: [
          { min_spend: 20, cashback_amount: 3 },
          { min_spend: 20, cashback_amount: 6 },
        ],
      });
      const ch = uniq('ch-');
      await enroll(w, ch, 0);
      await enroll(w, ch, 1);
      const { ref } = await post(w, { cardholder_token: ch });
      const res = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: ref,
      });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('rewarded_other_offer');
      expect(await redemptionsOf(w, ref)).toEqual([
        { id: res.body.redemption_id, offer_id: w.offers[1].id, source: 'claim' },
      ]);
    });

    it("rejected with the rules' codes, in simulate's vocabulary", async () => {
      const w = await world();
      const enrolled = uniq('ch-');
      await enroll(w, enrolled);
      const small = await post(w, { cardholder_token: enrolled, amount: 10 });
      const a = await claim(w, {
        cardholder_token: enrolled,
        offer_id: w.offers[0].id,
        transaction_ref: small.ref,
      });
      expect(a.body).toMatchObject({
        status: 'rejected',
        reasons: ['below_min_spend'],
        redemption_id: null,
      });

      const stranger = uniq('ch-');
      const theirs = await post(w, { cardholder_token: stranger });
      const b = await claim(w, {
        cardholder_token: stranger,
        offer_id: w.offers[0].id,
        transaction_ref: theirs.ref,
      });
      expect(b.body).toMatchObject({ status: 'rejected', reasons: ['not_enrolled'] });
      const [t] = await db.query(`SELECT status FROM transaction WHERE id = $1`, [theirs.id]);
      expect(t.status).toBe('unmatched');
    });

    it('rejected: a held-out cardholder of the offer (holdout first), even enrolled', async () => {
      const w = await world({
        offers: [{ min_spend: 20, cashback_amount: 5, holdout_percent: 50 }],
      });
      const offer = w.offers[0].id;
      const key = api.app.get(HoldoutKeys, { strict: false }).of(w.institution.id);
      let held = '';
      for (let i = 0; !held; i++) {
        const t = uniq(`ho-${i}-`);
        if (inHoldout(key, offer, t, 5000)) held = t;
      }
      // The add refuses a held-out cardholder; an enrollment written another way must not pay.
      await db.query(
        `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, added_at)
         VALUES ($1, $2, $3, now() - interval '1 hour')`,
        [w.institution.id, offer, held],
      );
      const { ref } = await post(w, { cardholder_token: held });
      const res = await claim(w, { cardholder_token: held, offer_id: offer, transaction_ref: ref });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('rejected');
      expect(res.body.reasons[0]).toBe('holdout');
      expect(await redemptionsOf(w, ref)).toEqual([]);
    });

    it('rejected by a barrier: refund, historical record, another cardholder, authorization under reward_on=clearing, the window', async () => {
      const w = await world({ program: { claim_window_days: 2 } });
      const ch = uniq('ch-');
      await enroll(w, ch);
      const offer = w.offers[0].id;
      const purchase = await post(w, { cardholder_token: ch, amount: 10 });
      const refund = await post(w, {
        cardholder_token: ch,
        transaction_type: 'refund',
        original_transaction_ref: purchase.ref,
      });
      const auth = await post(w, { cardholder_token: ch, transaction_type: 'authorization' });
      const old = await post(w, {
        cardholder_token: ch,
        transacted_at: new Date(Date.now() - 3 * DAY_MS).toISOString(),
      });
      const historyRef = uniq('hist-');
      await api.http
        .post('/api/v1/transactions/batch')
        .set('Authorization', w.auth)
        .send({
          history: true,
          transactions: [
            {
              card_token: `ctk_${uniq()}`,
              cardholder_token: ch,
              merchant_identifier: w.merchants[0].identifiers[0].value,
              transacted_at: new Date().toISOString(),
              amount: 25,
              transaction_ref: historyRef,
            },
          ],
        })
        .expect(202);
      const mine = await post(w, { cardholder_token: uniq('ch-') });

      const cases: [string, string][] = [
        [refund.ref, 'not_a_purchase'],
        [historyRef, 'historical_transaction'],
        [mine.ref, 'cardholder_mismatch'],
        [auth.ref, 'awaiting_clearing'],
        [old.ref, 'claim_window_expired'],
      ];
      for (const [ref, reason] of cases) {
        const res = await claim(w, { cardholder_token: ch, offer_id: offer, transaction_ref: ref });
        expect({ ref, status: res.status, body: res.body }).toMatchObject({
          ref,
          status: 201,
          body: { status: 'rejected', reasons: [reason], redemption_id: null },
        });
      }
      expect(await db.query(`SELECT id FROM redemption WHERE offer_id = $1`, [offer])).toEqual([]);
    });

    it('a repeat of a rejected claim is evaluated again (same id): the merchant was mapped since', async () => {
      const w = await world();
      const ch = uniq('ch-');
      await enroll(w, ch);
      const unmapped = uniq('CA-');
      const { ref } = await post(w, { cardholder_token: ch, merchant_identifier: unmapped });
      const body = { cardholder_token: ch, offer_id: w.offers[0].id, transaction_ref: ref };
      const first = await claim(w, body);
      expect(first.status).toBe(201);
      expect(first.body.status).toBe('rejected');
      expect(first.body.reasons).toContain('merchant_mismatch');
      await api.http
        .post(`/admin/api/v1/merchants/${w.merchants[0].id}/identifiers`)
        .set('Authorization', op())
        .send({ type: 'card_acceptor', value: unmapped })
        .expect(201);
      const again = await claim(w, body);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: first.body.id, status: 'approved', reasons: [] });
      expect(again.body.decided_at >= first.body.decided_at).toBe(true);
    });

    it('404 offer_not_found for an unknown offer or one not offered to the institution; nothing stored', async () => {
      const w = await world();
      const other = await world();
      const { ref } = await post(w, { cardholder_token: uniq('ch-') });
      for (const offerId of ['6f1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b', other.offers[0].id]) {
        const res = await claim(w, {
          cardholder_token: uniq('ch-'),
          offer_id: offerId,
          transaction_ref: ref,
        });
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('offer_not_found');
      }
      expect(
        await db.query(`SELECT id FROM claim WHERE institution_id = $1`, [w.institution.id]),
      ).toEqual([]);
    });

    it('422 transaction_not_found when the ref is not stored and no evidence is sent', async () => {
      const w = await world();
      const res = await claim(w, {
        cardholder_token: uniq('ch-'),
        offer_id: w.offers[0].id,
        transaction_ref: uniq('ref-'),
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('transaction_not_found');
      expect(
        await db.query(`SELECT id FROM claim WHERE institution_id = $1`, [w.institution.id]),
      ).toEqual([]);
    });
  });

  describe('a purchase that is not stored, with evidence', () => {
    it('pending_review, approved by an operator: stored as the ref, rewarded, claim.resolved; a late post is a duplicate; deciding again is 409', async () => {
      const w = await world();
      await db.query(
        `UPDATE institution SET webhook_event_types = array_append(webhook_event_types, 'claim.resolved') WHERE id = $1`,
        [w.institution.id],
      );
      const ch = uniq('ch-');
      await enroll(w, ch);
      const ref = uniq('ref-');
      const res = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: ref,
        purchase: evidence(w),
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'pending_review',
        reasons: [],
        redemption_id: null,
        source_of_decision: null,
        decided_at: null,
      });
      expect(await redemptionsOf(w, ref)).toEqual([]);

      const queue = await api.http
        .get(`/admin/api/v1/claims?status=pending_review&institution_id=${w.institution.id}`)
        .set('Authorization', op())
        .expect(200);
      expect(queue.body.data.map((c: { id: string }) => c.id)).toEqual([res.body.id]);
      expect(queue.body.data[0].purchase).toMatchObject({ amount: 30, currency: 'USD' });

      const approved = await decide(res.body.id, 'approve', 'receipt seen');
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({
        id: res.body.id,
        status: 'approved',
        source_of_decision: 'operator',
        decision_note: 'receipt seen',
        redemption_id: expect.any(String),
      });
      const [t] = await db.query(
        `SELECT source, status, amount::text AS amount FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
        [w.institution.id, ref],
      );
      expect(t).toEqual({ source: 'claim', status: 'matched', amount: '30.0000' });
      expect(await redemptionsOf(w, ref)).toEqual([
        { id: approved.body.redemption_id, offer_id: w.offers[0].id, source: 'claim' },
      ]);
      const [resolved] = await db.query(
        `SELECT payload FROM webhook_delivery WHERE institution_id = $1 AND event = 'claim.resolved'`,
        [w.institution.id],
      );
      expect(resolved.payload).toEqual({
        event: 'claim.resolved',
        claim_id: res.body.id,
        institution_id: w.institution.id,
        offer_id: w.offers[0].id,
        transaction_ref: ref,
        status: 'approved',
        reasons: [],
        redemption_id: approved.body.redemption_id,
        cardholder_token_masked: res.body.cardholder_token_masked,
        occurred_at: expect.any(String),
      });

      const late = await api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send({
          card_token: `ctk_${uniq()}`,
          cardholder_token: ch,
          merchant_identifier: w.merchants[0].identifiers[0].value,
          transacted_at: new Date().toISOString(),
          amount: 30,
          transaction_ref: ref,
        });
      expect(late.status).toBe(200);
      expect(late.body.status).toBe('duplicate');
      expect(await redemptionsOf(w, ref)).toHaveLength(1);
      const inbox = () =>
        db.query(`SELECT kind, body FROM inbox_message WHERE institution_id = $1`, [
          w.institution.id,
        ]);
      expect(await inbox()).toEqual([]); // the same purchase: nothing to tell
      const differs = await api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send({
          card_token: `ctk_${uniq()}`,
          cardholder_token: ch,
          merchant_identifier: w.merchants[0].identifiers[0].value,
          transacted_at: new Date().toISOString(),
          amount: 31,
          transaction_ref: ref,
        });
      expect(differs.body.status).toBe('duplicate');
      const messages = await inbox();
      expect(messages).toEqual([
        { kind: 'claim.duplicate_differs', body: expect.stringContaining(ref) },
      ]);
      expect(await redemptionsOf(w, ref)).toHaveLength(1);

      const twice = await decide(res.body.id, 'reject');
      expect(twice.status).toBe(409);
      expect(twice.body.error).toBe('claim_decided');
    });

    it('evidence that fails the rules is rejected at once; an operator may reject a pending one', async () => {
      const w = await world();
      const ch = uniq('ch-');
      const res = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: uniq('ref-'),
        purchase: evidence(w),
      });
      expect(res.body).toMatchObject({
        status: 'rejected',
        reasons: ['not_enrolled'],
        source_of_decision: 'rules',
      });

      await enroll(w, ch);
      const pending = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: uniq('ref-'),
        purchase: evidence(w),
      });
      expect(pending.body.status).toBe('pending_review');
      const rejected = await decide(pending.body.id, 'reject', 'no receipt');
      expect(rejected.status).toBe(200);
      expect(rejected.body).toMatchObject({ status: 'rejected', source_of_decision: 'operator' });
      // An operator's rejection stands: a repeat answers it unchanged.
      const repeat = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: pending.body.transaction_ref,
        purchase: evidence(w),
      });
      expect(repeat.status).toBe(200);
      expect(repeat.body).toMatchObject({
        id: pending.body.id,
        status: 'rejected',
        decision_note: 'no receipt',
      });
    });

    it('evidence is checked by the rules of a posted transaction (400)', async () => {
      const w = await world();
      const res = await claim(w, {
        cardholder_token: uniq('ch-'),
        offer_id: w.offers[0].id,
        transaction_ref: uniq('ref-'),
        purchase: evidence(w, { amount: -3 }),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('purchase.amount');
    });

    it('a refused approval (budget spent meanwhile) is 409 with the rule’s code; the claim stays pending_review and nothing is stored', async () => {
      const w = await world({
        offers: [{ min_spend: 20, cashback_amount: 5, merchant_fee_amount: 1, budget_total: 6 }],
      });
      const ch = uniq('ch-');
      const other = uniq('ch-');
      await enroll(w, ch);
      await enroll(w, other);
      const ref = uniq('ref-');
      const pending = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: ref,
        purchase: evidence(w),
      });
      expect(pending.body.status).toBe('pending_review');
      const spend = await post(w, { cardholder_token: other });
      const spent = await claim(w, {
        cardholder_token: other,
        offer_id: w.offers[0].id,
        transaction_ref: spend.ref,
      });
      expect(spent.body.status).toBe('approved');

      const refused = await decide(pending.body.id, 'approve');
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('budget_exhausted');
      const still = await api.http
        .get(`/api/v1/claims/${pending.body.id}`)
        .set('Authorization', w.auth)
        .expect(200);
      expect(still.body.status).toBe('pending_review');
      expect(
        await db.query(
          `SELECT id FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
          [w.institution.id, ref],
        ),
      ).toEqual([]);
    });

    it('the bank posts the ref while the claim is pending: the approval decides on the stored row, never a second redemption', async () => {
      const w = await world();
      const ch = uniq('ch-');
      await enroll(w, ch);
      const ref = uniq('ref-');
      const pending = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: ref,
        purchase: evidence(w),
      });
      const { id } = await post(w, { cardholder_token: ch, transaction_ref: ref });
      await api.app.get(MatchingService, { strict: false }).matchChunk([id]);
      const [matched] = await redemptionsOf(w, ref);
      expect(matched.source).toBe('matching');
      const approved = await decide(pending.body.id, 'approve');
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({
        status: 'already_rewarded',
        redemption_id: matched.id,
      });
      expect(await redemptionsOf(w, ref)).toHaveLength(1);
    });
  });

  describe("the decision's audit entry", () => {
    it('commits with the decision: an entry that cannot be written undoes the decision', async () => {
      const w = await world();
      await db.query(
        `UPDATE institution SET webhook_event_types = array_append(webhook_event_types, 'claim.resolved') WHERE id = $1`,
        [w.institution.id],
      );
      const ch = uniq('ch-');
      await enroll(w, ch);
      const filed = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: uniq('ref-'),
        purchase: evidence(w),
      });
      expect(filed.body.status).toBe('pending_review');
      const id: string = filed.body.id;
      const entries = () =>
        db.query(
          `SELECT action FROM audit_log WHERE resource_type = 'claim' AND resource_id = $1`,
          [id],
        );
      const deliveries = () =>
        db.query(
          `SELECT id FROM webhook_delivery WHERE institution_id = $1 AND event = 'claim.resolved'`,
          [w.institution.id],
        );

      const restore = await failAuditAppends(db, 'claim.decide');
      try {
        expect((await decide(id, 'approve', 'receipt seen')).status).toBe(500);
      } finally {
        await restore();
      }
      const [after] = await db.query(`SELECT status, decided_at FROM claim WHERE id = $1`, [id]);
      expect(after).toEqual({ status: 'pending_review', decided_at: null });
      expect(await entries()).toEqual([]);
      expect(await deliveries()).toEqual([]);

      expect((await decide(id, 'approve', 'receipt seen')).status).toBe(200);
      expect(await entries()).toEqual([{ action: 'claim.decide' }]);
      expect(await deliveries()).toHaveLength(1);
    });
  });

  describe('erasure', () => {
    it("erasing a cardholder replaces the token on the claims and in claim.resolved's masked form", async () => {
      const w = await world({ scopes: [...SCOPES, 'privacy'] });
      await db.query(
        `UPDATE institution SET webhook_event_types = array_append(webhook_event_types, 'claim.resolved') WHERE id = $1`,
        [w.institution.id],
      );
      const ch = uniq('chk_erase_');
      await enroll(w, ch);
      const pending = await claim(w, {
        cardholder_token: ch,
        offer_id: w.offers[0].id,
        transaction_ref: uniq('ref-'),
        purchase: evidence(w),
      });
      expect((await decide(pending.body.id, 'reject', 'no receipt')).status).toBe(200);
      const req = await api.http
        .post('/api/v1/cardholders/erasure')
        .set('Authorization', w.auth)
        .send({ cardholder_token: ch });
      expect(req.status).toBe(202);
      await api.app.get(CardholderErasureService, { strict: false }).run(req.body.id);
      const [c] = await db.query(`SELECT cardholder_token FROM claim WHERE id = $1`, [
        pending.body.id,
      ]);
      expect(c.cardholder_token).not.toBe(ch);
      expect(c.cardholder_token).toMatch(/^erased_/);
      const [d] = await db.query(
        `SELECT payload FROM webhook_delivery WHERE institution_id = $1 AND event = 'claim.resolved'`,
        [w.institution.id],
      );
      expect(JSON.stringify(d.payload)).not.toContain(ch.slice(-4));
      expect(d.payload.cardholder_token_masked).toMatch(/^erased_\*\*\*\*/);
    });
  });

  describe('lists', () => {
    it("lists the institution's claims newest first, by status, in keyset pages", async () => {
      const w = await world();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const ch = uniq('ch-');
        await enroll(w, ch);
        const { ref } = await post(w, { cardholder_token: ch, amount: i === 1 ? 5 : 25 });
        ids.push(
          (await claim(w, { cardholder_token: ch, offer_id: w.offers[0].id, transaction_ref: ref }))
            .body.id,
        );
      }
      const page1 = await api.http
        .get('/api/v1/claims?limit=2')
        .set('Authorization', w.auth)
        .expect(200);
      expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
      const page2 = await api.http
        .get(
          `/api/v1/claims?limit=2&cursor=${encodeURIComponent(page1.body.pagination.next_cursor)}`,
        )
        .set('Authorization', w.auth)
        .expect(200);
      expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
      expect(page2.body.pagination.next_cursor).toBeNull();
      const rejected = await api.http
        .get('/api/v1/claims?status=rejected')
        .set('Authorization', w.auth)
        .expect(200);
      expect(rejected.body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    });
  });

  describe('races: exactly one redemption per transaction', () => {
    it('a claim and matching of the same transaction', async () => {
      const w = await world();
      const matching = api.app.get(MatchingService, { strict: false });
      for (let i = 0; i < 5; i++) {
        const ch = uniq('ch-');
        await enroll(w, ch);
        const { ref, id } = await post(w, { cardholder_token: ch });
        const [c] = await Promise.all([
          claim(w, { cardholder_token: ch, offer_id: w.offers[0].id, transaction_ref: ref }),
          matching.matchChunk([id]),
        ]);
        expect(c.status).toBe(201);
        const redemptions = await redemptionsOf(w, ref);
        expect(redemptions).toHaveLength(1);
        expect(['approved', 'already_rewarded']).toContain(c.body.status);
        expect(c.body.redemption_id).toBe(redemptions[0].id);
        expect(redemptions[0].source).toBe(c.body.status === 'approved' ? 'claim' : 'matching');
      }
    });

    it('two claims for two offers of one purchase', async () => {
      const w = await world({ offers: [{ min_spend: 20 }, { min_spend: 20 }] });
      for (let i = 0; i < 5; i++) {
        const ch = uniq('ch-');
        await enroll(w, ch, 0);
        await enroll(w, ch, 1);
        const { ref } = await post(w, { cardholder_token: ch });
        const answers = await Promise.all(
          [0, 1].map((o) =>
            claim(w, { cardholder_token: ch, offer_id: w.offers[o].id, transaction_ref: ref }),
          ),
        );
        const redemptions = await redemptionsOf(w, ref);
        expect(redemptions).toHaveLength(1);
        const statuses = answers.map((a) => a.body.status).sort();
        expect(statuses).toContain('already_rewarded');
        for (const a of answers) expect(a.body.redemption_id).toBe(redemptions[0].id);
      }
    });

    it('two identical claims at the same moment make one claim', async () => {
      const w = await world();
      const ch = uniq('ch-');
      await enroll(w, ch);
      const { ref } = await post(w, { cardholder_token: ch });
      const body = { cardholder_token: ch, offer_id: w.offers[0].id, transaction_ref: ref };
      const answers = await Promise.all([claim(w, body), claim(w, body), claim(w, body)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 201]);
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      expect(
        await db.query(`SELECT id FROM claim WHERE institution_id = $1`, [w.institution.id]),
      ).toHaveLength(1);
      expect(await redemptionsOf(w, ref)).toHaveLength(1);
    });

    it('an approval and the bank’s late post of the same ref at once', async () => {
      const w = await world();
      for (let i = 0; i < 3; i++) {
        const ch = uniq('ch-');
        await enroll(w, ch);
        const ref = uniq('ref-');
        const pending = await claim(w, {
          cardholder_token: ch,
          offer_id: w.offers[0].id,
          transaction_ref: ref,
          purchase: evidence(w),
        });
        const [approved, late] = await Promise.all([
          decide(pending.body.id, 'approve'),
          api.http
            .post('/api/v1/transactions')
            .set('Authorization', w.auth)
            .send({
              card_token: `ctk_${uniq()}`,
              cardholder_token: ch,
              merchant_identifier: w.merchants[0].identifiers[0].value,
              transacted_at: new Date().toISOString(),
              amount: 30,
              transaction_ref: ref,
            }),
        ]);
        expect([200, 202]).toContain(late.status);
        expect(approved.status).toBe(200);
        // If the post won, its row is matched by the approval (no worker runs here).
        await api.app.get(MatchingService, { strict: false }).matchChunk([late.body.id]);
        const redemptions = await redemptionsOf(w, ref);
        expect(redemptions).toHaveLength(1);
        expect(approved.body.redemption_id).toBe(redemptions[0].id);
      }
    });
  });
});
