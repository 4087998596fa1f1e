// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-statement-closed-${process.pid}` });

import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'fs';
import { join } from 'path';
import { addDays, DAY_MS, monthEnd, verifyWebhook, WEBHOOK_BODY_ORDER } from '@app/domain';
import { QUEUES } from '@app/queue';
import {
  apiAndWorker,
  createWorld,
  enrollBeforePurchase,
  eventually,
  obliterateQueues,
  portalLogin,
  uniq,
  WebhookReceiver,
  World,
} from '@app/testing';
import { StatementCloseTimer } from '../../worker/src/statements/statement-close.timer';

/**
 * The `statement.closed` webhook event (docs/statements.md, docs/webhooks.md): off by default;
 * an institution that chose it gets one event per statement closed (by an operator or by the
 * worker's timer), written in the closing transaction, carrying the statement's figures, checksum
 * and lines path, and nothing when a close runs again.
 */
describe('statement.closed webhook', () => {
  const t = apiAndWorker();
  const today = () => new Date().toISOString().slice(0, 10); // the worlds here are on UTC
  let receiver: WebhookReceiver;
  const openapi = JSON.parse(
    readFileSync(join(__dirname, '../../../openapi/openapi.json'), 'utf8'),
  ) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const [name, schema] of Object.entries(openapi.components.schemas))
    ajv.addSchema(schema, `#/components/schemas/${name}`);

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await obliterateQueues(t.api, [QUEUES.webhooks, QUEUES.settlement]);
    await receiver.stop();
  });

  /** An institution on UTC with one purchase rewarded today; `choose`: it chose statement.closed. */
  async function institution(choose: boolean) {
    const w = await createWorld(t.api, {
      program: { time_zone: 'UTC' },
      rateLimits: { reporting: 10_000 },
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, merchant_fee_amount: 1 }],
    });
    const admin = await portalLogin(t.api, w.admin);
    await admin.agent
      .put('/portal/api/webhook')
      .set('X-CSRF-Token', admin.csrf)
      .send({ url: receiver.url })
      .expect(200);
    const secret = (
      await admin.agent
        .post('/portal/api/webhook/secret')
        .set('X-CSRF-Token', admin.csrf)
        .expect(201)
    ).body.signing_secret as string;
    if (choose)
      expect(
        (
          await admin.agent
            .put('/portal/api/webhook/event-types')
            .set('X-CSRF-Token', admin.csrf)
            .send({ event_types: ['redemption.completed', 'statement.closed'] })
            .expect(200)
        ).body.event_types,
      ).toEqual(['redemption.completed', 'statement.closed']);
    else
      expect((await admin.agent.get('/portal/api/webhook').expect(200)).body.event_types).toEqual([
        'redemption.completed',
        'redemption.reversed',
        'redemption.settled',
      ]);
    const token = `chk_${uniq()}${uniq()}`;
    await enrollBeforePurchase(t.api, w, token);
    const tx = await t.api.http
      .post('/api/v1/transactions')
      .set('Authorization', w.auth)
      .send({
        cardholder_token: token,
        card_token: 'ctk_1',
        merchant_identifier: w.merchants[0].identifiers[0].value,
        amount: 25,
        transaction_ref: uniq('ref-'),
        transacted_at: new Date().toISOString(),
      })
      .expect(202);
    await eventually(
      async () =>
        (await t.db.query(`SELECT 1 FROM redemption WHERE transaction_id = $1`, [tx.body.id]))[0],
      'the redemption',
    );
    return { w, secret };
  }

  const closedDeliveries = async (w: World): Promise<Record<string, unknown>[]> =>
    (
      await t.db.query(
        `SELECT payload FROM webhook_delivery WHERE institution_id = $1 AND event = 'statement.closed'
          ORDER BY payload->>'granularity', payload->>'period_start'`,
        [w.institution.id],
      )
    ).map((r: { payload: Record<string, unknown> }) => r.payload);
  const close = (w: World, through: string) =>
    t.api.http
      .post('/admin/api/v1/statements/close')
      .set('Authorization', t.op())
      .send({ through, institution_id: w.institution.id })
      .expect(200);

  it('off by default; once chosen, one event per statement an operator closes, as the statement reads; none again', async () => {
    const chose = await institution(true);
    const didNot = await institution(false);
    const expected = 1 + (monthEnd(today()) === today() ? 1 : 0);
    for (const { w } of [chose, didNot])
      expect((await close(w, today())).body).toEqual({ closed: expected });

    expect(await closedDeliveries(didNot.w)).toEqual([]);
    const events = await closedDeliveries(chose.w);
    expect(events).toHaveLength(expected);
    const [day] = events;
    const statement = (
      await t.api.http
        .get(`/api/v1/statements/${day.statement_id}`)
        .set('Authorization', chose.w.auth)
        .expect(200)
    ).body;
    expect(day).toEqual({
      event: 'statement.closed',
      statement_id: statement.id,
      institution_id: chose.w.institution.id,
      granularity: 'day',
      period_start: today(),
      period_end: today(),
      time_zone: 'UTC',
      currency: 'USD',
      checksum: statement.checksum,
      pending_opening: statement.pending_opening,
      earned: statement.earned,
      reversed: statement.reversed,
      settled: statement.settled,
      pending_closing: statement.pending_closing,
      clawed_back: statement.clawed_back,
      net_payout: statement.net_payout,
      movement_count: statement.movement_count,
      lines_path: `/api/v1/statements/${statement.id}/lines`,
      occurred_at: statement.closed_at,
    });
    expect(day.earned).toBe(5.5);
    const validate = ajv.getSchema('#/components/schemas/StatementClosedEventDto')!;
    expect({ valid: validate(day), errors: validate.errors }).toEqual({
      valid: true,
      errors: null,
    });
    expect(Object.keys(day).sort()).toEqual(
      Object.keys(openapi.components.schemas.StatementClosedEventDto.properties).sort(),
    );
    // The lines path serves the file the checksum is of.
    await t.api.http
      .get(day.lines_path as string)
      .set('Authorization', chose.w.auth)
      .expect(200);

    // Sent through the outbox, signed, in the documented field order.
    const got = await eventually(
      async () =>
        receiver.received.find((r) => r.rawBody.toString('utf8').includes(statement.id as string)),
      'the statement.closed request',
      30_000,
    );
    expect(got.headers['x-service-event']).toBe('statement.closed');
    expect(verifyWebhook(got.rawBody, got.headers, chose.secret).ok).toBe(true);
    expect(Object.keys(JSON.parse(got.rawBody.toString('utf8')))).toEqual(
      WEBHOOK_BODY_ORDER['statement.closed'],
    );

    // A second close closes nothing and asks for nothing.
    expect((await close(chose.w, today())).body).toEqual({ closed: 0 });
    expect(await closedDeliveries(chose.w)).toHaveLength(expected);
  });

  it("the worker's timer closes yesterday and sends its event", async () => {
    const { w } = await institution(true);
    // As if today's movements had been booked yesterday: the book's open day is yesterday.
    const yesterday = addDays(today(), -1);
    await t.db.query(
      `UPDATE statement_movement SET period_day = $2, booked_at = booked_at - interval '1 day' WHERE institution_id = $1`,
      [w.institution.id, yesterday],
    );
    await t.db.query(`UPDATE statement_book SET open_day = $2 WHERE institution_id = $1`, [
      w.institution.id,
      yesterday,
    ]);
    await t.worker.get(StatementCloseTimer).pass();
    const events = await eventually(
      async () => ((await closedDeliveries(w)).length ? closedDeliveries(w) : null),
      "yesterday's statement.closed",
    );
    expect(events.find((e) => e.granularity === 'day')).toMatchObject({
      period_start: yesterday,
      period_end: yesterday,
      earned: 5.5,
      movement_count: 1,
    });
    expect(events).toHaveLength(1 + (monthEnd(yesterday) === yesterday ? 1 : 0));
    expect(Date.parse(events[0].occurred_at as string)).toBeGreaterThan(Date.now() - DAY_MS);
  });
});
