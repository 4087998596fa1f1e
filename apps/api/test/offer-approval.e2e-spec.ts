// Maker–checker on (read at app start), and this file's own BullMQ prefix.
Object.assign(process.env, {
  OFFER_APPROVAL: 'required',
  QUEUE_PREFIX: `e2e-offer-approval-${process.pid}`,
});

import {
  apiAndWorker,
  createOperator,
  createWorld,
  enrollBeforePurchase,
  eventually,
  offerBody,
  uniq,
  World,
} from '@app/testing';

type Op = Awaited<ReturnType<typeof createOperator>>;

/**
 * Offer versions and maker–checker with OFFER_APPROVAL=required (docs/offers.md, Versions and
 * approval): drafts, submit, approve by another operator, reject, money edits of a live offer
 * waiting for approval while the live version keeps paying, purchases judged by the version live
 * at their transacted_at, the audit entries, and the break-glass exemption.
 */
describe('offers: maker–checker', () => {
  const ctx = apiAndWorker();
  let w: World;
  let author: Op;
  let approver: Op;
  let admin: Op;
  const bg = () => ctx.op();

  beforeAll(async () => {
    w = await createWorld(ctx.api, { merchants: [{}] });
    author = await createOperator(ctx.api, 'author');
    approver = await createOperator(ctx.api, 'approver');
    admin = await createOperator(ctx.api, 'admin');
  });

  const http = () => ctx.api.http;
  const draft = (over: Record<string, unknown> = {}) =>
    offerBody(w.merchants[0].id, {
      status: 'draft',
      institution_ids: [w.institution.id],
      max_redemptions_per_cardholder: 10,
      translations: { en: { title: uniq('Four eyes '), description: 'x' } },
      ...over,
    });
  const feedIds = async (token: string) =>
    (
      await http()
        .get('/api/v1/offers')
        .query({ cardholder_token: token })
        .set('Authorization', w.auth)
        .expect(200)
    ).body.offers.map((o: { id: string }) => o.id) as string[];
  const audit = async (offerId: string) =>
    (
      await http()
        .get('/admin/api/v1/audit')
        .query({ resource_type: 'offer', resource_id: offerId })
        .set('Authorization', admin.auth)
        .expect(200)
    ).body.data as {
      action: string;
      actor: { type: string; id: string | null };
      before: Record<string, unknown> | null;
      after: Record<string, unknown> | null;
    }[];

  it('a named operator creates drafts only; another operator approves; the offer is in the feed only then', async () => {
    await http()
      .post('/admin/api/v1/offers')
      .set('Authorization', author.auth)
      .send(draft({ status: 'active' }))
      .expect(409)
      .expect((r) => expect(r.body.error).toBe('approval_required'));
    const created = await http()
      .post('/admin/api/v1/offers')
      .set('Authorization', admin.auth)
      .send(draft())
      .expect(201);
    const id = created.body.id as string;
    expect(created.body.status).toBe('draft');
    const token = uniq('chk_ma_');
    expect(await feedIds(token)).not.toContain(id);

    // Activating a draft directly is refused; an author may not approve.
    await http()
      .patch(`/admin/api/v1/offers/${id}`)
      .set('Authorization', admin.auth)
      .send({ status: 'active' })
      .expect(409);
    await http()
      .post(`/admin/api/v1/offers/${id}/approve`)
      .set('Authorization', author.auth)
      .expect(403)
      .expect((r) => expect(r.body.error).toBe('insufficient_role'));
    await http()
      .post(`/admin/api/v1/offers/${id}/approve`)
      .set('Authorization', approver.auth)
      .expect(409)
      .expect((r) => expect(r.body.error).toBe('not_in_review'));

    const submitted = await http()
      .post(`/admin/api/v1/offers/${id}/submit`)
      .set('Authorization', admin.auth)
      .expect(200);
    expect(submitted.body.status).toBe('in_review');
    expect(await feedIds(token)).not.toContain(id);

    // The admin wrote it: it may not approve it.
    await http()
      .post(`/admin/api/v1/offers/${id}/approve`)
      .set('Authorization', admin.auth)
      .expect(409)
      .expect((r) => expect(r.body.error).toBe('same_operator'));
    const approved = await http()
      .post(`/admin/api/v1/offers/${id}/approve`)
      .set('Authorization', approver.auth)
      .expect(200);
    expect(approved.body.status).toBe('active');
    await eventually(
      async () => ((await feedIds(token)).includes(id) ? true : null),
      'the approved offer in the feed',
      10_000,
    );

    const versions = await http()
      .get(`/admin/api/v1/offers/${id}/versions`)
      .set('Authorization', author.auth)
      .expect(200);
    expect(versions.body.data).toHaveLength(1);
    expect(versions.body.data[0]).toMatchObject({
      number: 1,
      status: 'approved',
      created_by: { type: 'operator', id: admin.id },
      approved_by: { type: 'operator', id: approver.id },
    });
    expect(versions.body.data[0].approved_at).toEqual(expect.any(String));
    expect(versions.body.data[0].changes).toEqual(
      expect.arrayContaining([{ field: 'cashback_amount', from: null, to: 5 }]),
    );

    const entries = await audit(id);
    const actions = entries.map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['offer.create', 'offer.submit', 'offer.approve']),
    );
    const approve = entries.find((e) => e.action === 'offer.approve')!;
    expect(approve.actor).toMatchObject({ type: 'operator', id: approver.id });
    expect(approve.before).toMatchObject({ status: 'in_review' });
    expect(approve.after).toMatchObject({ status: 'active' });
    const submit = entries.find((e) => e.action === 'offer.submit')!;
    expect(submit.before).toMatchObject({ status: 'draft' });
    expect(submit.after).toMatchObject({ status: 'in_review' });
  });

  it('reject sends the version back to draft with the note; it can be changed and submitted again', async () => {
    const id = (
      await http()
        .post('/admin/api/v1/offers')
        .set('Authorization', author.auth)
        .send(draft())
        .expect(201)
    ).body.id as string;
    await http()
      .post(`/admin/api/v1/offers/${id}/submit`)
      .set('Authorization', author.auth)
      .expect(200);
    await http()
      .post(`/admin/api/v1/offers/${id}/reject`)
      .set('Authorization', author.auth)
      .send({ note: 'no' })
      .expect(403);
    const rejected = await http()
      .post(`/admin/api/v1/offers/${id}/reject`)
      .set('Authorization', approver.auth)
      .send({ note: 'The reward is too high.' })
      .expect(200);
    expect(rejected.body.status).toBe('draft');
    const [v] = (
      await http()
        .get(`/admin/api/v1/offers/${id}/versions`)
        .set('Authorization', author.auth)
        .expect(200)
    ).body.data;
    expect(v).toMatchObject({ status: 'draft', review_note: 'The reward is too high.' });
    await http()
      .patch(`/admin/api/v1/offers/${id}`)
      .set('Authorization', author.auth)
      .send({ cashback_amount: 3 })
      .expect(200);
    await http()
      .post(`/admin/api/v1/offers/${id}/submit`)
      .set('Authorization', author.auth)
      .expect(200);
    // The author withdraws it: offer and version back to draft.
    await http()
      .patch(`/admin/api/v1/offers/${id}`)
      .set('Authorization', author.auth)
      .send({ status: 'draft' })
      .expect(200)
      .expect((r) => expect(r.body.status).toBe('draft'));
    const [withdrawn] = (
      await http()
        .get(`/admin/api/v1/offers/${id}/versions`)
        .set('Authorization', author.auth)
        .expect(200)
    ).body.data;
    expect(withdrawn.status).toBe('draft');
    const entries = await audit(id);
    const reject = entries.find((e) => e.action === 'offer.reject')!;
    expect(reject.before).toMatchObject({ status: 'in_review' });
    expect(reject.after).toMatchObject({
      status: 'draft',
      version: { review_note: 'The reward is too high.' },
    });
    const update = entries.find(
      (e) =>
        e.action === 'offer.update' &&
        e.after?.cashback_amount === 3 &&
        e.after?.status === 'draft' &&
        e.before?.status === 'draft',
    )!;
    expect(update.before).toMatchObject({ cashback_amount: 5 });
    expect(update.after).toMatchObject({ cashback_amount: 3 });
  });

  it('simulate evaluates the draft as if active and the cardholder enrolled, through matching', async () => {
    const id = (
      await http()
        .post('/admin/api/v1/offers')
        .set('Authorization', author.auth)
        .send(draft({ cashback_amount: 7, min_spend: 30 }))
        .expect(201)
    ).body.id as string;
    const purchase = (amount: number) => ({
      cardholder_token: uniq('chk_sim_'),
      card_token: `ctk_${uniq()}`,
      merchant_identifier: w.merchants[0].identifiers[0].value,
      amount,
      transaction_ref: uniq('sim-'),
      transacted_at: new Date().toISOString(),
    });
    const ok = await http()
      .post(`/admin/api/v1/offers/${id}/simulate`)
      .set('Authorization', approver.auth)
      .send({ institution_id: w.institution.id, purchase: purchase(40) })
      .expect(200);
    expect(ok.body.version).toMatchObject({ number: 1, status: 'draft' });
    expect(ok.body.evaluation).toMatchObject({
      offer_id: id,
      outcome: 'match',
      cashback_amount: 7,
      cardholder_offer_id: null,
    });
    const low = await http()
      .post(`/admin/api/v1/offers/${id}/simulate`)
      .set('Authorization', approver.auth)
      .send({ institution_id: w.institution.id, purchase: purchase(20) })
      .expect(200);
    expect(low.body.evaluation).toMatchObject({
      outcome: 'no_match',
      reasons: ['below_min_spend'],
    });
  });

  it('a money edit of a live offer waits for approval while the live version keeps paying; purchases are judged by the version live at transacted_at', async () => {
    const id = (
      await http()
        .post('/admin/api/v1/offers')
        .set('Authorization', bg())
        .send(draft({ status: 'active' }))
        .expect(201)
    ).body.id as string;
    const token = uniq('chk_live_');
    // Enrolled, and the clock past the enrollment: what follows is strictly later.
    await enrollBeforePurchase(ctx.api, w, token, { offerId: id });

    // Texts and priority apply at once; a money edit answers 202 with the live offer.
    const texts = await http()
      .patch(`/admin/api/v1/offers/${id}`)
      .set('Authorization', author.auth)
      .send({ priority: 4 })
      .expect(200);
    expect(texts.body.priority).toBe(4);
    const edit = await http()
      .patch(`/admin/api/v1/offers/${id}`)
      .set('Authorization', author.auth)
      .send({ cashback_amount: 8, translations: { en: { title: 'Now 8 back' } } })
      .expect(202);
    expect(edit.body.offer).toMatchObject({
      id,
      cashback_amount: 5,
      translations: { en: { title: 'Now 8 back' } },
    });
    expect(edit.body.pending_version).toMatchObject({
      number: 2,
      changed_by: { type: 'operator', id: author.id },
    });
    // The holdout of a live offer is locked, pending version or not; currency is never editable.
    await http()
      .patch(`/admin/api/v1/offers/${id}`)
      .set('Authorization', author.auth)
      .send({ holdout_percent: 10 })
      .expect(409)
      .expect((r) => expect(r.body.error).toBe('holdout_locked'));
    await http()
      .patch(`/admin/api/v1/offers/${id}`)
      .set('Authorization', admin.auth)
      .send({ currency: 'EUR' })
      .expect(400);

    const post = async (at: Date) =>
      (
        await http()
          .post('/api/v1/transactions')
          .set('Authorization', w.auth)
          .send({
            cardholder_token: token,
            card_token: `ctk_${uniq()}`,
            merchant_identifier: w.merchants[0].identifiers[0].value,
            amount: 25,
            transaction_ref: uniq('mc-'),
            transacted_at: at.toISOString(),
          })
          .expect(202)
      ).body.id as string;
    const cashback = (txId: string) =>
      eventually(
        async () => {
          const [r] = await ctx.db.query(
            `SELECT r.cashback_amount::int AS c FROM redemption r WHERE r.transaction_id = $1`,
            [txId],
          );
          return r ? (r.c as number) : null;
        },
        `redemption of ${txId}`,
        30_000,
      );

    const beforeApproval = new Date();
    expect(await cashback(await post(beforeApproval))).toBe(500);

    await http()
      .post(`/admin/api/v1/offers/${id}/approve`)
      .set('Authorization', author.auth)
      .expect(403);
    const approved = await http()
      .post(`/admin/api/v1/offers/${id}/approve`)
      .set('Authorization', approver.auth)
      .expect(200);
    expect(approved.body).toMatchObject({ cashback_amount: 8, pending_version: null });

    // After approval the new terms pay; a purchase made before it, arriving late, the old ones.
    expect(await cashback(await post(new Date(Date.now() + 100)))).toBe(800);
    expect(await cashback(await post(new Date(beforeApproval.getTime() + 1)))).toBe(500);

    const versions = (
      await http()
        .get(`/admin/api/v1/offers/${id}/versions`)
        .set('Authorization', author.auth)
        .expect(200)
    ).body.data;
    expect(versions.map((v: { number: number; status: string }) => [v.number, v.status])).toEqual([
      [2, 'approved'],
      [1, 'superseded'],
    ]);
    expect(versions[0].changes).toEqual([{ field: 'cashback_amount', from: 5, to: 8 }]);

    // Pause applies at once for an approver, audited.
    await http()
      .patch(`/admin/api/v1/offers/${id}`)
      .set('Authorization', approver.auth)
      .send({ status: 'paused' })
      .expect(200)
      .expect((r) => expect(r.body.status).toBe('paused'));
    const actions = (await audit(id)).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['offer.create', 'offer.update', 'offer.approve', 'offer.pause']),
    );
  });

  it('a refund judges a purchase by the min_spend of the version it was made under', async () => {
    const id = (
      await http()
        .post('/admin/api/v1/offers')
        .set('Authorization', bg())
        .send(draft({ status: 'active', min_spend: 20 }))
        .expect(201)
    ).body.id as string;
    const token = uniq('chk_ref_');
    // Enrolled, and the clock past the enrollment: what follows is strictly later.
    await enrollBeforePurchase(ctx.api, w, token, { offerId: id });
    const send = async (body: Record<string, unknown>) =>
      (
        await http()
          .post('/api/v1/transactions')
          .set('Authorization', w.auth)
          .send({
            cardholder_token: token,
            card_token: `ctk_${uniq()}`,
            merchant_identifier: w.merchants[0].identifiers[0].value,
            transacted_at: new Date().toISOString(),
            ...body,
          })
          .expect(202)
      ).body.id as string;
    const status = (txId: string) =>
      eventually(
        async () => {
          const [t] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [txId]);
          return t && t.status !== 'received' ? (t.status as string) : null;
        },
        `transaction ${txId} processed`,
        30_000,
      );
    const ref = uniq('buy-');
    expect(await status(await send({ amount: 28, transaction_ref: ref }))).toBe('matched');

    await http()
      .patch(`/admin/api/v1/offers/${id}`)
      .set('Authorization', author.auth)
      .send({ min_spend: 30 })
      .expect(202);
    await http()
      .post(`/admin/api/v1/offers/${id}/approve`)
      .set('Authorization', approver.auth)
      .expect(200);

    // Net 25: at least the 20 of the version it was made under (the live 30 would reverse it).
    await status(
      await send({
        transaction_type: 'refund',
        original_transaction_ref: ref,
        amount: 3,
        transaction_ref: uniq('refund-'),
      }),
    );
    const [r] = await ctx.db.query(
      `SELECT r.status FROM redemption r JOIN transaction t ON t.id = r.transaction_id WHERE t.transaction_ref = $1`,
      [ref],
    );
    expect(r.status).not.toBe('reversed');
  });

  it('the break-glass token is exempt and audited', async () => {
    const res = await http()
      .post('/admin/api/v1/offers')
      .set('Authorization', bg())
      .send(draft({ status: 'active' }))
      .expect(201);
    expect(res.body.status).toBe('active');
    const edit = await http()
      .patch(`/admin/api/v1/offers/${res.body.id}`)
      .set('Authorization', bg())
      .send({ cashback_amount: 6 })
      .expect(200);
    expect(edit.body.cashback_amount).toBe(6);
    const entries = await audit(res.body.id);
    expect(entries.find((e) => e.action === 'offer.create')!.actor.type).toBe('break_glass');
    expect(entries.find((e) => e.action === 'offer.update')).toMatchObject({
      actor: { type: 'break_glass' },
      before: { cashback_amount: 5 },
      after: { cashback_amount: 6 },
    });
  });
});
