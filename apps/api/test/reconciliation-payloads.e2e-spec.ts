// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-reconcile-${process.pid}` });

import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'fs';
import { join } from 'path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '@app/db';
import { AuthorizationExpiryTimer } from '../../worker/src/lifecycle/authorization-expiry.timer';
import {
  apiAndWorker,
  createWorld,
  DAY,
  eventually,
  TEST_DATABASE_URL,
  uniq,
  World,
} from '@app/testing';

/**
 * Payloads a bank can reconcile alone (docs/webhooks.md, "Reconciling an event alone"): every
 * redemption event and reporting row carries the rewarded record's transaction_ref, the amount
 * the reward was computed on, the merchant-funded amount, the goal round and the currency, stored
 * on the redemption; a reversal says why and which record caused it. Each event body is the
 * stored delivery body, checked against its schema in the OpenAPI document.
 */
describe('payloads a bank can reconcile alone', () => {
  const ctx = apiAndWorker();
  const openapi = JSON.parse(
    readFileSync(join(__dirname, '../../../openapi/openapi.json'), 'utf8'),
  ) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const [name, schema] of Object.entries(openapi.components.schemas))
    ajv.addSchema(schema, `#/components/schemas/${name}`);
  const SCHEMA_OF: Record<string, string> = {
    'redemption.completed': 'RedemptionCompletedEventDto',
    'redemption.reversed': 'RedemptionReversedEventDto',
    'redemption.settled': 'RedemptionSettledEventDto',
  };

  type Body = Record<string, unknown>;

  /** One merchant, one offer, one enrolled cardholder, and the helpers to post and read. */
  async function setup(program: Record<string, unknown>, offer: Record<string, unknown>) {
    const w: World = await createWorld(ctx.api, {
      program: { settlement_hold_days: 0, ...program },
      merchants: [{}],
      offers: [{ starts_at: new Date(Date.now() - DAY).toISOString(), ...offer }],
    });
    const token = `chk_${uniq()}${uniq()}`;
    await ctx.api.http
      .post(`/api/v1/offers/${w.offers[0].id}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: token })
      .expect(201);
    const record = (type: string, amount: number, over: Record<string, unknown> = {}) => ({
      cardholder_token: token,
      card_token: 'ctk_1',
      merchant_identifier: w.merchants[0].identifiers[0].value,
      amount,
      transaction_ref: uniq(`${type.slice(0, 4)}-`),
      transacted_at: new Date().toISOString(),
      transaction_type: type,
      ...over,
    });
    /** Posts and waits until matching processed it. */
    const send = async (body: Record<string, unknown>) => {
      const res = await ctx.api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send(body)
        .expect(202);
      await eventually(
        async () => {
          const [t] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [
            res.body.id,
          ]);
          return t && t.status !== 'received' ? t.status : null;
        },
        `transaction ${res.body.id} processed`,
        30_000,
      );
      return body;
    };
    /** The institution's event bodies, oldest first, each valid under its OpenAPI schema. */
    const events = async (): Promise<Body[]> => {
      const rows: { event: string; payload: Body }[] = await ctx.db.query(
        `SELECT event, payload FROM webhook_delivery WHERE institution_id = $1 ORDER BY created_at, id`,
        [w.institution.id],
      );
      for (const { event, payload } of rows) {
        const name = SCHEMA_OF[event];
        const validate = ajv.getSchema(`#/components/schemas/${name}`)!;
        expect({ event, valid: validate(payload), errors: validate.errors }).toEqual({
          event,
          valid: true,
          errors: null,
        });
        expect(Object.keys(payload).sort()).toEqual(
          Object.keys(openapi.components.schemas[name].properties).sort(),
        );
      }
      return rows.map((r) => r.payload);
    };
    const of = (list: Body[], event: string) => list.filter((e) => e.event === event);
    const settle = () =>
      ctx.api.http
        .post('/admin/api/v1/settlements/run')
        .set('Authorization', ctx.op())
        .send({})
        .expect(200);
    const reporting = async (list: 'redemptions' | 'settlements') =>
      (await ctx.api.http.get(`/api/v1/reporting/${list}`).set('Authorization', w.auth).expect(200))
        .body.data as Body[];
    return { w, token, record, send, events, of, settle, reporting };
  }

  it('a purchase: completed, settled and reversed by a refund carry its ref, amounts, currency; reporting rows too, stored', async () => {
    const s = await setup(
      {},
      { min_spend: 20, reward_type: 'percent', cashback_percent: 10, cashback_amount: 15 },
    );
    const purchase = await s.send(s.record('purchase', 45.5));
    const [completed] = s.of(await s.events(), 'redemption.completed');
    const reconciles = {
      transaction_ref: purchase.transaction_ref,
      purchase_amount: 45.5,
      goal_round: null,
      currency: 'USD',
    };
    expect(completed).toMatchObject({ ...reconciles, merchant_funded_amount: 4.55 });
    const merchantFunded = completed.merchant_funded_amount;

    await s.settle();
    const [settled] = await eventually(async () => {
      const list = s.of(await s.events(), 'redemption.settled');
      return list.length ? list : null;
    }, 'redemption.settled');
    expect(settled).toMatchObject({ ...reconciles, merchant_funded_amount: merchantFunded });

    const [item] = await s.reporting('redemptions');
    expect(item).toMatchObject({ ...reconciles, merchant_funded_amount: merchantFunded });
    const [entry] = await s.reporting('settlements');
    expect(entry).toMatchObject({ ...reconciles, merchant_funded_amount: merchantFunded });

    const refund = await s.send(
      s.record('refund', 30, { original_transaction_ref: purchase.transaction_ref }),
    );
    const [reversed] = s.of(await s.events(), 'redemption.reversed');
    expect(reversed).toMatchObject({
      ...reconciles,
      merchant_funded_amount: merchantFunded,
      clawback_amount: completed.institution_payout_amount,
      reversal_reason: 'refund',
      reversal_transaction_ref: refund.transaction_ref,
    });
    const [stored] = await ctx.db.query(
      `SELECT transaction_ref, reversal_reason, reversal_transaction_ref FROM redemption WHERE id = $1`,
      [completed.redemption_id],
    );
    expect(stored).toEqual({
      transaction_ref: purchase.transaction_ref,
      reversal_reason: 'refund',
      reversal_transaction_ref: refund.transaction_ref,
    });

    // Stored, not joined: the transaction's own row changing (retention will remove it) changes
    // no reporting row.
    await ctx.db.query(
      `UPDATE transaction SET transaction_ref = transaction_ref || '-gone' WHERE institution_id = $1`,
      [s.w.institution.id],
    );
    expect((await s.reporting('redemptions'))[0]).toMatchObject(reconciles);
    expect((await s.reporting('settlements'))[0]).toMatchObject(reconciles);
  });

  it("a goal: the reward names the round and the round's spend; a refund below target says so", async () => {
    const s = await setup(
      {},
      {
        min_spend: 10,
        reward_type: 'percent',
        cashback_percent: 10,
        cashback_amount: 100,
        goal: { type: 'cumulative_spend', target: 100 },
      },
    );
    await s.send(s.record('purchase', 60));
    const second = await s.send(s.record('purchase', 45));
    const [completed] = s.of(await s.events(), 'redemption.completed');
    expect(completed).toMatchObject({
      transaction_ref: second.transaction_ref,
      purchase_amount: 105,
      merchant_funded_amount: 10.5,
      goal_round: 1,
      currency: 'USD',
    });
    expect((await s.reporting('redemptions'))[0]).toMatchObject({
      transaction_ref: second.transaction_ref,
      purchase_amount: 105,
      goal_round: 1,
    });
    const refund = await s.send(
      s.record('refund', 45, { original_transaction_ref: second.transaction_ref }),
    );
    const [reversed] = s.of(await s.events(), 'redemption.reversed');
    expect(reversed).toMatchObject({
      redemption_id: completed.redemption_id,
      goal_round: 1,
      purchase_amount: 105,
      reversal_reason: 'goal_round_below_target',
      reversal_transaction_ref: refund.transaction_ref,
    });
  });

  describe('card chains', () => {
    const percent = { min_spend: 20, reward_type: 'percent', cashback_percent: 10 };

    it('reward_on=clearing: the clearing holds the reward and its ref', async () => {
      const s = await setup({}, { ...percent, cashback_amount: 15 });
      const auth = await s.send(s.record('authorization', 40));
      const clearing = await s.send(
        s.record('clearing', 40, { original_transaction_ref: auth.transaction_ref }),
      );
      const [completed] = s.of(await s.events(), 'redemption.completed');
      expect(completed).toMatchObject({
        transaction_ref: clearing.transaction_ref,
        purchase_amount: 40,
      });
    });

    it('reward_on=authorization: the authorization holds it; a changed clearing reverses (clearing_changed) and reissues on the clearing', async () => {
      const s = await setup({ reward_on: 'authorization' }, { ...percent, cashback_amount: 15 });
      const auth = await s.send(s.record('authorization', 30));
      const clearing = await s.send(
        s.record('clearing', 50, { original_transaction_ref: auth.transaction_ref }),
      );
      const list = await s.events();
      const completed = s.of(list, 'redemption.completed');
      expect(completed.map((e) => [e.transaction_ref, e.purchase_amount])).toEqual([
        [auth.transaction_ref, 30],
        [clearing.transaction_ref, 50],
      ]);
      expect(s.of(list, 'redemption.reversed')).toEqual([
        expect.objectContaining({
          redemption_id: completed[0].redemption_id,
          transaction_ref: auth.transaction_ref,
          reversal_reason: 'clearing_changed',
          reversal_transaction_ref: clearing.transaction_ref,
        }),
      ]);
    });

    it('reward_on=authorization: a void reverses (void, the void’s ref)', async () => {
      const s = await setup({ reward_on: 'authorization' }, { ...percent, cashback_amount: 15 });
      const auth = await s.send(s.record('authorization', 30));
      const voided = await s.send(
        s.record('authorization_reversal', 30, { original_transaction_ref: auth.transaction_ref }),
      );
      expect(s.of(await s.events(), 'redemption.reversed')).toEqual([
        expect.objectContaining({
          transaction_ref: auth.transaction_ref,
          reversal_reason: 'void',
          reversal_transaction_ref: voided.transaction_ref,
        }),
      ]);
    });

    it('reward_on=authorization: an expiry reverses (authorization_expired, no record)', async () => {
      const s = await setup(
        { reward_on: 'authorization', authorization_expiry_days: 1 },
        { ...percent, cashback_amount: 15 },
      );
      const auth = await s.send(s.record('authorization', 30));
      await ctx.worker.get(AuthorizationExpiryTimer).pass(new Date(Date.now() + 1.5 * DAY));
      expect(s.of(await s.events(), 'redemption.reversed')).toEqual([
        expect.objectContaining({
          transaction_ref: auth.transaction_ref,
          purchase_amount: 30,
          reversal_reason: 'authorization_expired',
          reversal_transaction_ref: null,
        }),
      ]);
    });
  });
});

describe('the upgrade', () => {
  it("stores every redemption's transaction_ref and the reasons the records tell; an old insert is filled", async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${url.pathname.slice(1)}_reconcile`;
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const name = url.pathname.slice(1);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const before = MIGRATIONS.findIndex((m) => m.name.startsWith('RedemptionReconciliation'));
    const old = await new DataSource(
      dataSourceOptions(url.toString(), { migrations: MIGRATIONS.slice(0, before) }),
    ).initialize();
    await old.runMigrations();
    // The previous release's rows: a live purchase, a refunded one, a voided and an expired card
    // chain rewarded at the authorization, and a reversed goal round.
    await old.query(`
      WITH i AS (INSERT INTO institution (name, plan) VALUES ('Old Bank', 'growth') RETURNING id),
           p AS (INSERT INTO program (institution_id) SELECT id FROM i),
           m AS (INSERT INTO merchant (name, category) VALUES ('Shop', 'grocery') RETURNING id),
           o AS (INSERT INTO offer (merchant_id, status, translations, cashback_amount, currency, starts_at, expires_at)
                 SELECT id, 'active', '{"en": {"title": "t", "description": "d"}}', 500, 'USD', now() - interval '1 day', now() + interval '1 day' FROM m RETURNING id),
           co AS (INSERT INTO cardholder_offer (offer_id, institution_id, cardholder_token)
                  SELECT o.id, i.id, 'chk_old' FROM o, i RETURNING id, offer_id, institution_id),
           tx AS (INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, amount, transacted_at, source, kind, original_transaction_ref)
                  SELECT i.id, x.ref, 'chk_old', 25, now() - x.n * interval '1 minute', 'api', x.kind, x.original
                    FROM i, (VALUES ('live', 'purchase', NULL, 9), ('refunded', 'purchase', NULL, 8), ('refunded-r1', 'refund', 'refunded', 7),
                                    ('refunded-r2', 'refund', 'refunded', 6), ('voided', 'authorization', NULL, 5),
                                    ('voided-v', 'authorization_reversal', 'voided', 4), ('expired', 'authorization', NULL, 3),
                                    ('goal', 'purchase', NULL, 2)) AS x(ref, kind, original, n)
                  RETURNING id, transaction_ref),
           ch AS (INSERT INTO card_chain (institution_id, authorization_ref, state)
                  SELECT i.id, x.ref, x.state FROM i, (VALUES ('voided', 'voided'), ('expired', 'expired')) AS x(ref, state))
      INSERT INTO redemption (institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency,
                              purchase_amount, cashback_amount, merchant_funded_amount, service_revenue_amount,
                              institution_payout_amount, status, goal_round)
      SELECT co.institution_id, tx.id, co.id, co.offer_id, 'chk_old', 'USD', 2500, 500, 500, 0, 500,
             CASE WHEN tx.transaction_ref = 'live' THEN 'pending' ELSE 'reversed' END,
             CASE WHEN tx.transaction_ref = 'goal' THEN 1 END
        FROM co, tx WHERE tx.transaction_ref IN ('live', 'refunded', 'voided', 'expired', 'goal')`);
    await old.destroy();

    const ds = await new DataSource(dataSourceOptions(url.toString())).initialize();
    try {
      await ds.runMigrations();
      const rows = await ds.query(
        `SELECT transaction_ref, reversal_reason, reversal_transaction_ref FROM redemption ORDER BY transaction_ref`,
      );
      expect(rows).toEqual([
        {
          transaction_ref: 'expired',
          reversal_reason: 'authorization_expired',
          reversal_transaction_ref: null,
        },
        {
          transaction_ref: 'goal',
          reversal_reason: 'goal_round_below_target',
          reversal_transaction_ref: null,
        },
        { transaction_ref: 'live', reversal_reason: null, reversal_transaction_ref: null },
        {
          transaction_ref: 'refunded',
          reversal_reason: 'refund',
          reversal_transaction_ref: 'refunded-r2',
        },
        {
          transaction_ref: 'voided',
          reversal_reason: 'void',
          reversal_transaction_ref: 'voided-v',
        },
      ]);
      // The previous release, still running during a deploy, inserts without transaction_ref.
      await ds.query(
        `INSERT INTO redemption (institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency,
                                 purchase_amount, cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount)
         SELECT r.institution_id, t.id, r.cardholder_offer_id, r.offer_id, 'chk_old', 'USD', 2500, 500, 500, 0, 500
           FROM redemption r, transaction t WHERE r.transaction_ref = 'live' AND t.transaction_ref = 'refunded-r1'`,
      );
      const [filled] = await ds.query(
        `SELECT r.transaction_ref FROM redemption r JOIN transaction t ON t.id = r.transaction_id
          WHERE t.transaction_ref = 'refunded-r1'`,
      );
      expect(filled).toEqual({ transaction_ref: 'refunded-r1' });
    } finally {
      await ds.destroy();
    }
  });
});
