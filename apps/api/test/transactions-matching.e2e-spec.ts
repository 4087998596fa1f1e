// Own BullMQ prefix (no other suite's worker takes these jobs) and a fast matching relay; read at app start.
Object.assign(process.env, {
  QUEUE_PREFIX: `e2e-matching-${process.pid}`,
  MATCH_RELAY_GRACE_MS: '1000',
  MATCH_RELAY_INTERVAL_MS: '300',
});

import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { MatchingService } from '@app/core';
import { maskToken } from '@app/domain';
import {
  closeQueue,
  jobIds,
  MATCH_JOB_NAME,
  type MatchJob,
  openQueue,
  QUEUES,
  REDIS,
  type RedisClient,
  SETTLEMENT_SCHEDULER_ID,
} from '@app/queue';
import {
  clockPast,
  createWorld,
  DAY,
  enrollBeforePurchase,
  eventually,
  jobsSettled,
  startApi,
  startWorker,
  TcpProxy,
  TestApi,
  uniq,
  World,
} from '@app/testing';

// Stopping it is a Redis outage for this suite's api and worker alone.
const redisOutage = new TcpProxy(new URL(process.env.REDIS_URL!));
// On a Redis Cluster (scripts/test-redis-cluster.js) REDIS_URL is not used: the clients connect to
// the nodes the cluster names, past any proxy, so the outage test needs one Redis.
const onOneRedis = process.env.REDIS_CLUSTER_NODES ? it.skip : it;

describe('matching, redemptions, refunds and settlement (api + worker)', () => {
  let api: TestApi;
  let worker: INestApplicationContext | undefined;
  let db: DataSource;
  let config: AppConfig;

  beforeAll(async () => {
    await redisOutage.start();
    process.env.REDIS_URL = `redis://127.0.0.1:${redisOutage.port}`;
    api = await startApi();
    worker = await startWorker();
    db = api.app.get(DataSource);
    config = api.app.get(AppConfig);
  });

  afterAll(async () => {
    await worker?.close();
    for (const name of [QUEUES.matching, QUEUES.settlement, QUEUES.webhooks]) {
      const q = openQueue(config.redis, config.queuePrefix, name);
      await q.obliterate({ force: true }).catch(() => undefined);
      await closeQueue(q);
    }
    await api.close();
    await redisOutage.stop();
  });

  // --- helpers -------------------------------------------------------------------------------

  /** Enrolls through the public API; answers the cardholder_offer id once a purchase may follow. */
  async function enroll(w: World, offerId: string, token: string): Promise<string> {
    return (await enrollBeforePurchase(api, w, token, { offerId })).cardholder_offer_id;
  }

  const matchingQueue = () =>
    openQueue<MatchJob>(config.redis, config.queuePrefix, QUEUES.matching);

  function event(
    w: World,
    token: string,
    overrides: Record<string, unknown> = {},
  ): Record<string, unknown> {
    return {
      cardholder_token: token,
      card_token: `ctk_${uniq()}`,
      merchant_identifier: w.merchants[0].identifiers[0].value,
      amount: 25,
      transaction_ref: uniq('ref-'),
      transacted_at: new Date().toISOString(),
      ...overrides,
    };
  }

  async function post(w: World, body: Record<string, unknown>, expected = 202): Promise<string> {
    const res = await api.http.post('/api/v1/transactions').set('Authorization', w.auth).send(body);
    if (res.status !== expected) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id;
  }

  /** Waits until matching has processed the transaction; returns its final status. */
  const processed = (id: string, timeoutMs = 20_000) =>
    eventually(
      async () => {
        const [t] = await db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
        return t && t.status !== 'received' ? (t.status as string) : null;
      },
      `transaction ${id} processed`,
      timeoutMs,
    );

  const redemptionOf = async (txId: string) =>
    (await db.query(`SELECT * FROM redemption WHERE transaction_id = $1`, [txId]))[0];
  const enrollmentRow = async (id: string) =>
    (
      await db.query(`SELECT status, redemption_count FROM cardholder_offer WHERE id = $1`, [id])
    )[0];
  const budgetUsed = async (offerId: string) =>
    Number(
      (await db.query(`SELECT budget_used FROM offer_budget WHERE offer_id = $1`, [offerId]))[0]
        .budget_used,
    );

  /** A purchase at the offer's merchant by a freshly enrolled cardholder; waits until processed. */
  async function enrolledPurchase(
    w: World,
    offerIndex = 0,
    overrides: Record<string, unknown> = {},
  ) {
    const token = `chk_${uniq()}`;
    const enrollmentId = await enroll(w, w.offers[offerIndex].id, token);
    const id = await post(w, event(w, token, overrides));
    const status = await processed(id);
    return { token, enrollmentId, id, status };
  }

  // --- matching ------------------------------------------------------------------------------

  it('a qualifying purchase: redemption, pending settlement entry and redemption.completed delivery in one go', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, merchant_fee_amount: 1.25, budget_total: 100 }],
    });
    const { token, enrollmentId, id, status } = await enrolledPurchase(w);
    expect(status).toBe('matched');
    const r = await redemptionOf(id);
    expect(r).toMatchObject({
      institution_id: w.institution.id,
      cardholder_offer_id: enrollmentId,
      offer_id: w.offers[0].id,
      cardholder_token: token,
      currency: 'USD',
      purchase_amount: '2500',
      cashback_amount: '500',
      merchant_funded_amount: '625', // cashback + fee
      service_revenue_amount: '63', // round(125 × 0.5), half-up
      institution_payout_amount: '562',
      status: 'pending',
    });
    const [entry] = await db.query(`SELECT * FROM settlement_entry WHERE redemption_id = $1`, [
      r.id,
    ]);
    expect(entry).toMatchObject({
      institution_id: w.institution.id,
      offer_id: w.offers[0].id,
      merchant_id: w.merchants[0].id,
      currency: 'USD',
      merchant_funded_amount: '625',
      service_revenue_amount: '63',
      institution_payout_amount: '562',
      status: 'pending',
      clawback_amount: null,
    });
    const [delivery] = await db.query(`SELECT * FROM webhook_delivery WHERE redemption_id = $1`, [
      r.id,
    ]);
    expect(delivery.event).toBe('redemption.completed');
    expect(delivery.payload).toEqual({
      event: 'redemption.completed',
      redemption_id: r.id,
      institution_id: w.institution.id,
      offer_id: w.offers[0].id,
      cardholder_token: token,
      cardholder_token_masked: maskToken(token),
      institution_payout_amount: 5.62,
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      // Additive: what reconciles it alone, as stored on the redemption.
      transaction_ref: r.transaction_ref,
      purchase_amount: 25,
      merchant_funded_amount: 6.25,
      goal_round: null,
      currency: 'USD',
    });
    const [{ transaction_ref: ref }] = await db.query(
      `SELECT transaction_ref FROM transaction WHERE id = $1`,
      [id],
    );
    expect(r.transaction_ref).toBe(ref);
    expect(delivery.payload.occurred_at).toBe(r.created_at.toISOString());
    // Budget reserved (merchant funded), enrollment redeemed at max_redemptions_per_cardholder (1).
    expect(await budgetUsed(w.offers[0].id)).toBe(625);
    expect(await enrollmentRow(enrollmentId)).toEqual({ status: 'redeemed', redemption_count: 1 });
    const [t] = await db.query(`SELECT merchant_id, processed_at FROM transaction WHERE id = $1`, [
      id,
    ]);
    expect(t.merchant_id).toBe(w.merchants[0].id);
    expect(t.processed_at).toBeInstanceOf(Date);
  });

  it('resolves all five identifier types, the card_acceptor_id alias and the earlier shape’s merchant_id', async () => {
    const types = ['card_acceptor', 'pix_key', 'upi_vpa', 'codi', 'psp_merchant_id'];
    const identifiers = types.map((type) => ({ type, value: uniq(`${type}-`) }));
    const w = await createWorld(api, {
      merchants: [{ identifiers }],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    // Built when posted: the legacy body's timestamp must follow its enrollment, however slow
    // the loop (through a pooler on a busy machine it took longer than a second).
    const bodies: (() => Record<string, unknown>)[] = [];
    for (const i of identifiers)
      bodies.push(() => ({ merchant_identifier: i.value, merchant_identifier_type: i.type }));
    bodies.push(() => ({ merchant_identifier: undefined, card_acceptor_id: identifiers[0].value }));
    bodies.push(() => ({
      merchant_identifier: undefined,
      merchant_id: w.merchants[0].id,
      currency: 'USD',
      transacted_at: undefined,
      // A minute ahead: the bodies are built before the enrollments below, which a loaded machine
      // can take seconds over (the purchase would then precede its enrollment).
      timestamp: new Date(Date.now() + 60_000).toISOString(),
      transaction_ref: undefined,
      transaction_id: uniq('legacy-'),
    }));
    const ids: string[] = [];
    for (const overrides of bodies) {
      const token = `chk_${uniq()}`;
      await enroll(w, w.offers[0].id, token);
      const body = Object.fromEntries(
        Object.entries(event(w, token, overrides())).filter(([, v]) => v !== undefined),
      );
      ids.push(await post(w, body));
    }
    for (const id of ids) expect(await processed(id)).toBe('matched');
  });

  it('an unresolved merchant is stored as merchant_unresolved', async () => {
    const w = await createWorld(api, { merchants: [{}], offers: [{}] });
    const id = await post(w, event(w, `chk_${uniq()}`, { merchant_identifier: uniq('nobody-') }));
    expect(await processed(id)).toBe('merchant_unresolved');
    // A merchant_id (earlier shape) that names no merchant is unresolved too.
    const id2 = await post(
      w,
      event(w, `chk_${uniq()}`, {
        merchant_identifier: undefined,
        merchant_id: '00000000-0000-4000-8000-000000000000',
      }),
    );
    expect(await processed(id2)).toBe('merchant_unresolved');
  });

  it('no match: below min_spend, currency mismatch, another cardholder, enrollment after the purchase', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    expect((await enrolledPurchase(w, 0, { amount: 19.99 })).status).toBe('unmatched');
    expect((await enrolledPurchase(w, 0, { currency: 'EUR' })).status).toBe('unmatched');
    const id = await post(w, event(w, `chk_${uniq()}`));
    expect(await processed(id)).toBe('unmatched');
    // Purchase made an hour before the cardholder enrolled (arriving after the enrollment).
    const { status } = await enrolledPurchase(w, 0, {
      transacted_at: new Date(Date.now() - 3_600_000).toISOString(),
    });
    expect(status).toBe('unmatched');
  });

  it('a late-arriving purchase made inside the window matches on its own transacted_at, after the offer expired', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, max_redemptions_per_cardholder: 2 }],
    });
    const token = `chk_${uniq()}`;
    const enrollmentId = await enroll(w, w.offers[0].id, token);
    const inside = new Date().toISOString();
    const expiresAt = new Date(Date.now() + 300).toISOString();
    await api.http
      .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .send({ expires_at: expiresAt })
      .expect(200);
    await clockPast(expiresAt, 'the offer expiry');
    const late = await post(w, event(w, token, { transacted_at: inside }));
    const after = await post(w, event(w, token, { transacted_at: new Date().toISOString() }));
    expect(await processed(late)).toBe('matched');
    expect(await processed(after)).toBe('unmatched');
    expect((await enrollmentRow(enrollmentId)).redemption_count).toBe(1);
  });

  it('percent reward: the percentage of the purchase, capped at cashback_amount', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 10, reward_type: 'percent', cashback_percent: 10, cashback_amount: 5 }],
    });
    const small = await enrolledPurchase(w, 0, { amount: 33.35 });
    expect((await redemptionOf(small.id)).cashback_amount).toBe('334'); // 3.335 → 3.34 (half-up)
    const big = await enrolledPurchase(w, 0, { amount: 200 });
    expect((await redemptionOf(big.id)).cashback_amount).toBe('500'); // capped at 5
  });

  it('at most one redemption per transaction: the offer with the highest institution payout', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [
        { min_spend: 20, cashback_amount: 5 },
        { min_spend: 20, cashback_amount: 4, merchant_fee_amount: 3 }, // payout 4 + 1.5 = 5.5
        { min_spend: 50, cashback_amount: 9 }, // does not qualify
      ],
    });
    const token = `chk_${uniq()}`;
    const e = await Promise.all(w.offers.map((o) => enroll(w, o.id, token)));
    const id = await post(w, event(w, token));
    expect(await processed(id)).toBe('matched');
    const r = await redemptionOf(id);
    expect(r).toMatchObject({ offer_id: w.offers[1].id, institution_payout_amount: '550' });
    expect(
      await db.query(`SELECT count(*)::int AS n FROM redemption WHERE transaction_id = $1`, [id]),
    ).toEqual([{ n: 1 }]);
    expect((await enrollmentRow(e[0])).redemption_count).toBe(0);
    expect(await budgetUsed(w.offers[0].id)).toBe(0);
  });

  it('max_redemptions_per_cardholder: counts up, then the enrollment is redeemed and stops matching', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, max_redemptions_per_cardholder: 2 }],
    });
    const token = `chk_${uniq()}`;
    const enrollmentId = await enroll(w, w.offers[0].id, token);
    expect(await processed(await post(w, event(w, token)))).toBe('matched');
    expect(await enrollmentRow(enrollmentId)).toEqual({ status: 'active', redemption_count: 1 });
    expect(await processed(await post(w, event(w, token)))).toBe('matched');
    expect(await enrollmentRow(enrollmentId)).toEqual({ status: 'redeemed', redemption_count: 2 });
    expect(await processed(await post(w, event(w, token)))).toBe('unmatched');
  });

  it('budget for 5 redemptions and 30 concurrent qualifying purchases by 30 enrolled cardholders → exactly 5', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, budget_total: 25 }],
    });
    const tokens = Array.from({ length: 30 }, () => `chk_${uniq()}`);
    for (const t of tokens) await enroll(w, w.offers[0].id, t);
    const ids = await Promise.all(tokens.map((t) => post(w, event(w, t))));
    const statuses = await Promise.all(ids.map((id) => processed(id)));
    expect(statuses.filter((s) => s === 'matched')).toHaveLength(5);
    expect(statuses.filter((s) => s === 'unmatched')).toHaveLength(25);
    expect(
      await db.query(`SELECT count(*)::int AS n FROM redemption WHERE offer_id = $1`, [
        w.offers[0].id,
      ]),
    ).toEqual([{ n: 5 }]);
    expect(await budgetUsed(w.offers[0].id)).toBe(2500);
  });

  it('50 concurrent posts of one transaction_ref → 1 accepted, 49 duplicates with its id, 1 redemption', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, max_redemptions_per_cardholder: 10 }],
    });
    const token = `chk_${uniq()}`;
    await enroll(w, w.offers[0].id, token);
    const body = event(w, token);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        api.http.post('/api/v1/transactions').set('Authorization', w.auth).send(body),
      ),
    );
    const accepted = responses.filter((r) => r.status === 202);
    const duplicates = responses.filter((r) => r.status === 200);
    expect(accepted).toHaveLength(1);
    expect(duplicates).toHaveLength(49);
    const id = accepted[0].body.id;
    expect(duplicates.every((r) => r.body.id === id && r.body.status === 'duplicate')).toBe(true);
    expect(await processed(id)).toBe('matched');
    const queue = matchingQueue();
    await jobsSettled(queue, '', 'matching jobs').finally(() => closeQueue(queue));
    expect(
      await db.query(`SELECT count(*)::int AS n FROM redemption WHERE offer_id = $1`, [
        w.offers[0].id,
      ]),
    ).toEqual([{ n: 1 }]);
  });

  it('a batch is matched in chunks (one job per chunk), every item once', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    const tokens = Array.from({ length: 40 }, () => `chk_${uniq()}`);
    for (const t of tokens) await enroll(w, w.offers[0].id, t);
    const items = tokens.map((t) => event(w, t));
    const res = await api.http
      .post('/api/v1/transactions/batch')
      .set('Authorization', w.auth)
      .send({ transactions: [...items, event(w, tokens[0], { amount: 5 })] })
      .expect(202);
    expect(res.body.accepted).toBe(41);
    await eventually(async () => {
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM transaction WHERE institution_id = $1 AND status = 'received'`,
        [w.institution.id],
      );
      return n === 0;
    }, 'batch processed');
    expect(
      await db.query(`SELECT count(*)::int AS n FROM redemption WHERE offer_id = $1`, [
        w.offers[0].id,
      ]),
    ).toEqual([{ n: 40 }]);
  });

  it('idempotent: running a chunk again, or re-enqueueing it, changes nothing', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [
        { min_spend: 20, cashback_amount: 5, budget_total: 50, max_redemptions_per_cardholder: 5 },
      ],
    });
    const { id, enrollmentId } = await enrolledPurchase(w);
    const unmatched = await post(w, event(w, `chk_${uniq()}`));
    await processed(unmatched);
    const snapshot = async () =>
      (
        await db.query(
          `SELECT (SELECT count(*) FROM redemption WHERE offer_id = $1)::int AS redemptions,
                  (SELECT count(*) FROM settlement_entry WHERE offer_id = $1)::int AS entries,
                  (SELECT count(*) FROM webhook_delivery d JOIN redemption r ON r.id = d.redemption_id WHERE r.offer_id = $1)::int AS deliveries,
                  (SELECT budget_used FROM offer_budget WHERE offer_id = $1) AS budget,
                  (SELECT redemption_count FROM cardholder_offer WHERE id = $2) AS count,
                  (SELECT array_agg(status || processed_at::text ORDER BY id) FROM transaction WHERE id = ANY($3)) AS statuses`,
          [w.offers[0].id, enrollmentId, [id, unmatched]],
        )
      )[0];
    const before = await snapshot();
    const stats = await worker!.get(MatchingService).matchChunk([id, unmatched]);
    expect(stats).toMatchObject({ requested: 2, claimed: 0, matched: 0 });
    const q = openQueue(config.redis, config.queuePrefix, QUEUES.matching);
    const job = await q.add(
      MATCH_JOB_NAME,
      { transactionIds: [id, unmatched] },
      { jobId: jobIds.rematch(`${id}-again`) },
    );
    await eventually(async () => (await job.isCompleted()) || null, 'job run again');
    await closeQueue(q);
    expect(await snapshot()).toEqual(before);
    expect(before).toMatchObject({
      redemptions: 1,
      entries: 1,
      deliveries: 1,
      budget: '500',
      count: 1,
    });
  });

  it('ids from another database (or unknown) are ignored: the job completes', async () => {
    const stats = await worker!
      .get(MatchingService)
      .matchChunk(['00000000-0000-4000-8000-000000000001']);
    expect(stats).toMatchObject({ requested: 1, claimed: 0 });
  });

  // --- failure and recovery --------------------------------------------------------------------

  it('transactions accepted while the worker is stopped are matched once it starts', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    const tokens = Array.from({ length: 3 }, () => `chk_${uniq()}`);
    for (const t of tokens) await enroll(w, w.offers[0].id, t);
    await worker!.close();
    worker = undefined;
    try {
      const ids = await Promise.all(tokens.map((t) => post(w, event(w, t))));
      // The chunk's job waits in the queue with no worker to take it.
      const queue = matchingQueue();
      await eventually(async () => {
        const jobs = await queue.getJobs(['waiting', 'prioritized']);
        return jobs.some((j) => ids.some((id) => j.data.transactionIds.includes(id)));
      }, 'the matching job to be queued').finally(() => closeQueue(queue));
      const rows = await db.query(`SELECT status FROM transaction WHERE id = ANY($1)`, [ids]);
      expect(rows.map((r: { status: string }) => r.status)).toEqual([
        'received',
        'received',
        'received',
      ]);
      worker = await startWorker();
      for (const id of ids) expect(await processed(id)).toBe('matched');
    } finally {
      worker ??= await startWorker();
    }
  });

  onOneRedis(
    'transactions accepted while Redis is unreachable still get 202, and are matched after it returns (relay)',
    async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [{ min_spend: 20, cashback_amount: 5 }],
      });
      const token = `chk_${uniq()}`;
      await enroll(w, w.offers[0].id, token);
      let id: string;
      await redisOutage.stop();
      try {
        const redis = api.app.get<RedisClient>(REDIS);
        await eventually(async () => redis.status !== 'ready', 'the api to lose Redis');
        const started = Date.now();
        id = await post(w, event(w, token));
        expect(Date.now() - started).toBeLessThan(2_000);
        // Past the relay's grace and one more relay pass: nothing can enqueue it while Redis is away.
        await clockPast(started + config.matching.relayGraceMs + config.matching.relayIntervalMs);
        const [t] = await db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
        expect(t.status).toBe('received');
      } finally {
        await redisOutage.start();
      }
      // On a timeout, the queue's counts say which side held it: a job waiting or delayed (the
      // relay then waits its long grace) or none (the relay or the worker did not come back).
      const status = await processed(id!, 40_000).catch(async (e: Error) => {
        const q = matchingQueue();
        const counts = await q.getJobCounts().finally(() => closeQueue(q));
        throw new Error(`${e.message}; matching queue: ${JSON.stringify(counts)}`);
      });
      expect(status).toBe('matched');
    },
    60_000,
  );

  // --- refunds ---------------------------------------------------------------------------------

  const refund = (w: World, token: string, originalRef: string, amount: number) =>
    event(w, token, { transaction_type: 'refund', original_transaction_ref: originalRef, amount });

  it('a refund taking the net amount below min_spend reverses a pending redemption (no clawback), gives back budget and the enrollment', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, budget_total: 100 }],
    });
    const { token, id, enrollmentId } = await enrolledPurchase(w);
    const [{ transaction_ref: ref }] = await db.query(
      `SELECT transaction_ref FROM transaction WHERE id = $1`,
      [id],
    );
    // 25 − 3 = 22 ≥ 20: still earned.
    const small = await post(w, refund(w, token, ref, 3));
    expect(await processed(small)).toBe('matched');
    expect((await redemptionOf(id)).status).toBe('pending');
    // 25 − 3 − 4 = 18 < 20: reversed (all refunds count).
    const second = await post(w, refund(w, token, ref, 4));
    expect(await processed(second)).toBe('matched');
    const r = await redemptionOf(id);
    expect(r.status).toBe('reversed');
    expect(r.reversed_at).toBeInstanceOf(Date);
    const [entry] = await db.query(
      `SELECT status, clawback_amount, reversed_at FROM settlement_entry WHERE redemption_id = $1`,
      [r.id],
    );
    expect(entry).toMatchObject({
      status: 'reversed',
      clawback_amount: null,
      reversed_at: expect.any(Date),
    });
    const [delivery] = await db.query(
      `SELECT payload FROM webhook_delivery WHERE redemption_id = $1 AND event = 'redemption.reversed'`,
      [r.id],
    );
    expect(delivery.payload).toMatchObject({
      event: 'redemption.reversed',
      redemption_id: r.id,
      institution_payout_amount: 5,
      clawback_amount: null,
      cardholder_token: token,
    });
    expect(await budgetUsed(w.offers[0].id)).toBe(0);
    expect(await enrollmentRow(enrollmentId)).toEqual({ status: 'active', redemption_count: 0 });
  });

  it('after settlement, a reversal claws back the institution payout', async () => {
    const w = await createWorld(api, {
      program: { settlement_hold_days: 0 },
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    const { token, id } = await enrolledPurchase(w);
    const res = await api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .send({})
      .expect(200);
    expect(res.body.settled).toBeGreaterThanOrEqual(1);
    const r0 = await redemptionOf(id);
    expect(r0).toMatchObject({ status: 'settled', settled_at: expect.any(Date) });
    const [{ transaction_ref: ref }] = await db.query(
      `SELECT transaction_ref FROM transaction WHERE id = $1`,
      [id],
    );
    await processed(await post(w, refund(w, token, ref, 25)));
    const [entry] = await db.query(
      `SELECT status, clawback_amount, settled_at, reversed_at FROM settlement_entry WHERE redemption_id = $1`,
      [r0.id],
    );
    expect(entry).toMatchObject({
      status: 'reversed',
      clawback_amount: '500',
      settled_at: expect.any(Date),
      reversed_at: expect.any(Date),
    });
    expect((await redemptionOf(id)).status).toBe('reversed');
    const [delivery] = await db.query(
      `SELECT payload FROM webhook_delivery WHERE redemption_id = $1 AND event = 'redemption.reversed'`,
      [r0.id],
    );
    expect(delivery.payload.clawback_amount).toBe(5);
    // A reversed entry is never settled again.
    await api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .send({})
      .expect(200);
    expect(
      (await db.query(`SELECT status FROM settlement_entry WHERE redemption_id = $1`, [r0.id]))[0]
        .status,
    ).toBe('reversed');
  });

  it('a refund of a purchase with no redemption, or of an unknown purchase, is stored and changes nothing', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    const token = `chk_${uniq()}`;
    const p = event(w, token, { amount: 10 });
    await processed(await post(w, p));
    const before = await db.query(`SELECT count(*)::int AS n FROM redemption WHERE offer_id = $1`, [
      w.offers[0].id,
    ]);
    const r1 = await post(w, refund(w, token, p.transaction_ref as string, 5));
    expect(await processed(r1)).toBe('matched');
    const r2 = await post(w, refund(w, token, 'no-such-purchase', 5));
    expect(await processed(r2)).toBe('unmatched');
    expect(
      await db.query(`SELECT count(*)::int AS n FROM redemption WHERE offer_id = $1`, [
        w.offers[0].id,
      ]),
    ).toEqual(before);
    expect(
      await db.query(`SELECT kind, original_transaction_ref FROM transaction WHERE id = $1`, [r1]),
    ).toEqual([{ kind: 'refund', original_transaction_ref: p.transaction_ref }]);
  });

  it('a refund that arrives before its purchase is netted when the purchase is matched', async () => {
    const w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    const token = `chk_${uniq()}`;
    await enroll(w, w.offers[0].id, token);
    const purchase = event(w, token, { amount: 25 });
    expect(
      await processed(await post(w, refund(w, token, purchase.transaction_ref as string, 10))),
    ).toBe('unmatched');
    expect(await processed(await post(w, purchase))).toBe('unmatched'); // 25 − 10 < 20
  });

  // --- settlement ------------------------------------------------------------------------------

  it('settles only entries whose hold has passed at as_of; a settled entry is not settled again', async () => {
    const w = await createWorld(api, {
      program: { settlement_hold_days: 2 },
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    const { id } = await enrolledPurchase(w);
    const r = await redemptionOf(id);
    const run = (asOf: Date) =>
      api.http
        .post('/admin/api/v1/settlements/run')
        .set('Authorization', `Bearer ${api.operatorToken}`)
        .send({ as_of: asOf.toISOString() })
        .expect(200);
    await run(new Date(Date.now() + DAY));
    expect((await redemptionOf(id)).status).toBe('pending');
    await run(new Date(r.created_at.getTime() + 2 * DAY + 60_000));
    const [entry] = await db.query(
      `SELECT status, settled_at, settlement_run_id FROM settlement_entry WHERE redemption_id = $1`,
      [r.id],
    );
    expect(entry).toMatchObject({ status: 'settled', settlement_run_id: expect.any(String) });
    expect((await redemptionOf(id)).status).toBe('settled');
    const [runRow] = await db.query(
      `SELECT trigger, settled_count FROM settlement_run WHERE id = $1`,
      [entry.settlement_run_id],
    );
    expect(runRow.trigger).toBe('operator');
    expect(runRow.settled_count).toBeGreaterThanOrEqual(1);
    await run(new Date(Date.now() + 3 * DAY));
    const [again] = await db.query(
      `SELECT settled_at, settlement_run_id FROM settlement_entry WHERE redemption_id = $1`,
      [r.id],
    );
    expect(again).toEqual({
      settled_at: entry.settled_at,
      settlement_run_id: entry.settlement_run_id,
    });
  });

  it('400 for an as_of that is not a timestamp', async () => {
    const res = await api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .send({ as_of: 'tomorrow' })
      .expect(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it('the worker declares the settlement job scheduler, and its job settles due entries', async () => {
    const q = openQueue(config.redis, config.queuePrefix, QUEUES.settlement);
    try {
      const scheduler = await eventually(
        () => q.getJobScheduler(SETTLEMENT_SCHEDULER_ID),
        'settlement scheduler',
      );
      expect(scheduler).toMatchObject({ pattern: config.settlementSchedule, tz: 'UTC' });
      const w = await createWorld(api, {
        program: { settlement_hold_days: 0 },
        merchants: [{}],
        offers: [{ min_spend: 20, cashback_amount: 5 }],
      });
      const { id } = await enrolledPurchase(w);
      await q.add('settle', { trigger: 'schedule', asOf: new Date().toISOString() });
      await eventually(
        async () => ((await redemptionOf(id)).status === 'settled' ? true : null),
        'scheduled settlement',
      );
      const [runRow] = await db.query(
        `SELECT r.trigger FROM settlement_entry e JOIN settlement_run r ON r.id = e.settlement_run_id JOIN redemption x ON x.id = e.redemption_id WHERE x.transaction_id = $1`,
        [id],
      );
      expect(runRow.trigger).toBe('schedule');
    } finally {
      await closeQueue(q);
    }
  });
});
