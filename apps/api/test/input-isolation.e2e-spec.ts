import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IngestionService } from '@app/core';
import { parseTransactionEvent, TransactionEvent } from '@app/domain';
import {
  createWorld,
  eventually,
  portalLogin,
  startApi,
  startWorker,
  TestApi,
  uniq,
  World,
} from '@app/testing';

// Own queue prefix: other test files' workers must not take this file's jobs (and the reverse).
process.env.QUEUE_PREFIX = uniq('t-isolation-');

type Agent = Awaited<ReturnType<typeof portalLogin>>;

/**
 * One tenant's bad input never fails another's request, and every bad input is a clear 400:
 * group commits and batches isolate a row the database refuses, dates are strict, strings are
 * well-formed Unicode without NUL, JSON nesting is bounded and __proto__ is an unknown field.
 */
describe('input isolation and the shared input rules', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let db: DataSource;
  let a: World;
  let b: World;
  let portalA: Agent;
  const op = () => `Bearer ${api.operatorToken}`;

  beforeAll(async () => {
    api = await startApi();
    (await import('prom-client')).register.clear();
    worker = await startWorker();
    db = api.app.get(DataSource);
    a = await createWorld(api, { merchants: [{}], offers: [{}] });
    b = await createWorld(api, { merchants: [{}] });
    portalA = await portalLogin(api, a.admin);
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
  });

  const event = (w: World, overrides: Record<string, unknown> = {}) => ({
    cardholder_token: `chk_${uniq()}`,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: w.merchants[0].identifiers[0].value,
    amount: 25,
    transaction_ref: uniq('ref-'),
    transacted_at: new Date().toISOString(),
    ...overrides,
  });
  const post = (w: World, body: unknown, path = '/api/v1/transactions') =>
    api.http
      .post(path)
      .set('Authorization', w.auth)
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  const count = async (w: World, refs?: string[]) =>
    Number(
      (
        await db.query(
          `SELECT count(*)::int AS n FROM transaction WHERE institution_id = $1 AND ($2::text[] IS NULL OR transaction_ref = ANY($2))`,
          [w.institution.id, refs ?? null],
        )
      )[0].n,
    );
  const validationError = (res: { status: number; body: Record<string, unknown> }) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'validation_failed',
      message: expect.any(String),
      request_id: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/SQL|postgres|stack|at \//i);
  };

  describe('finding 1: mixed-tenant group commit', () => {
    it('A posts dates PostgreSQL rejects among B’s concurrent posts: every one of B’s posts succeeds', async () => {
      const bad = ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+14:00'];
      const bBodies = Array.from({ length: 300 }, () => event(b));
      const aBodies = Array.from({ length: 60 }, (_, i) => event(a, { transacted_at: bad[i % 2] }));
      const all = [
        ...bBodies.map((body) => post(b, body).then((r) => ({ who: 'b', r }))),
        ...aBodies.map((body) => post(a, body).then((r) => ({ who: 'a', r }))),
      ];
      const results = await Promise.all(all);
      const bStatuses = results.filter((x) => x.who === 'b').map((x) => x.r.status);
      const aStatuses = results.filter((x) => x.who === 'a').map((x) => x.r.status);
      expect(bStatuses.filter((s) => s === 202)).toHaveLength(300);
      expect(new Set(aStatuses)).toEqual(new Set([400]));
      expect(
        await count(
          b,
          bBodies.map((x) => x.transaction_ref),
        ),
      ).toBe(300);
      expect(
        await count(
          a,
          aBodies.map((x) => x.transaction_ref),
        ),
      ).toBe(0);
    });

    it('a row the statement itself refuses (past every validator) fails alone, not its group', async () => {
      const ingestion = api.app.get(IngestionService);
      const parse = (w: World) => {
        const p = parseTransactionEvent(event(w), { institutionId: w.institution.id });
        if (!p.ok) throw new Error('fixture');
        return p.event;
      };
      const poisoned: TransactionEvent = { ...parse(a), transactedAt: '0000-01-01T00:00:00.000Z' };
      // Submitted in one tick: the first ones take the free slots, the rest (the poisoned row in
      // the middle of B's) leave together in one group write.
      const bEvents = Array.from({ length: 200 }, () => parse(b));
      const calls = bEvents.map((e) => ingestion.submitOne(b.institution.id, e));
      calls.splice(100, 0, ingestion.submitOne(a.institution.id, poisoned));
      const settled = await Promise.allSettled(calls);
      const [bad] = settled.splice(100, 1);
      expect(bad.status).toBe('rejected');
      expect(settled.map((r) => r.status)).toEqual(bEvents.map(() => 'fulfilled'));
      expect(
        await count(
          b,
          bEvents.map((e) => e.transactionRef),
        ),
      ).toBe(200);
    });
  });

  describe('finding 2: one bad item of a batch or a CSV file', () => {
    it('a batch item with an impossible date is an invalid item; the valid item is stored', async () => {
      const good = event(a);
      const res = await post(
        a,
        { transactions: [good, event(a, { transacted_at: '0000-01-01T00:00:00Z' })] },
        '/api/v1/transactions/batch',
      );
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ received: 2, accepted: 1, duplicates: 0 });
      expect(res.body.invalid).toEqual([
        { index: 1, errors: [{ field: 'transacted_at', message: expect.any(String) }] },
      ]);
      expect(await count(a, [good.transaction_ref as string])).toBe(1);
    });

    it('a batch row the statement refuses fails alone with a reason; its neighbours are stored', async () => {
      const ingestion = api.app.get(IngestionService);
      const events = [event(a), event(a), event(a)].map((e) => {
        const p = parseTransactionEvent(e, { institutionId: a.institution.id });
        if (!p.ok) throw new Error('fixture');
        return p.event;
      });
      events[1] = { ...events[1], transactedAt: '0000-01-01T00:00:00.000Z' };
      const outcome = await ingestion.submitMany(a.institution.id, events, 'batch');
      expect(outcome).toEqual({
        accepted: [0, 2],
        duplicates: [],
        failed: [{ index: 1, reason: 'holds a value the database cannot store' }],
      });
      expect(
        await count(
          a,
          events.map((e) => e.transactionRef),
        ),
      ).toBe(2);
    });

    it('a 3-row CSV with one impossible date completes with 2 accepted and 1 invalid line', async () => {
      const ca = a.merchants[0].identifiers[0].value;
      const refs = [uniq('csv-'), uniq('csv-'), uniq('csv-')];
      const now = new Date().toISOString();
      const csv = [
        'cardholder_token,card_token,merchant_identifier,amount,transaction_ref,transacted_at',
        `chk_${uniq()},ctk_${uniq()},${ca},25,${refs[0]},${now}`,
        `chk_${uniq()},ctk_${uniq()},${ca},25,${refs[1]},0000-01-01T00:00:00Z`,
        `chk_${uniq()},ctk_${uniq()},${ca},25,${refs[2]},${now}`,
      ].join('\n');
      const res = await portalA.agent
        .post('/portal/api/transactions/uploads')
        .set('X-CSRF-Token', portalA.csrf)
        .attach('file', Buffer.from(csv), 'three.csv');
      expect(res.status).toBe(202);
      const done = await eventually(
        async () => {
          const r = await portalA.agent.get(`/portal/api/transactions/uploads/${res.body.id}`);
          return ['completed', 'failed'].includes(r.body.status) ? r.body : null;
        },
        'the upload to finish',
        60_000,
        100,
      );
      expect(done).toMatchObject({ status: 'completed', accepted: 2, invalid_count: 1 });
      expect(await count(a, refs)).toBe(2);
    });
  });

  describe('finding 3: lone surrogate in transaction_ref', () => {
    const raw = (ref: string) => JSON.stringify(event(a, { transaction_ref: ref }));

    it('a single post is a 400 naming the field, and nothing is stored', async () => {
      const res = await post(a, raw('r-\ud800'));
      validationError(res);
      expect(res.body.details).toEqual([
        { field: 'transaction_ref', message: expect.stringMatching(/well-formed/) },
      ]);
      expect(
        (
          await db.query(
            `SELECT count(*)::int AS n FROM transaction WHERE transaction_ref = 'r-\uFFFD'`,
          )
        )[0].n,
      ).toBe(0);
    });

    it('in a batch it is one invalid item, never a duplicate; the other item is stored', async () => {
      const good = event(a);
      const body = `{"transactions":[${JSON.stringify(good)},${raw('r2-\udc00x')}]}`;
      const res = await post(a, body, '/api/v1/transactions/batch');
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({
        received: 2,
        accepted: 1,
        duplicates: 0,
        duplicate_indexes: [],
      });
      expect(res.body.invalid).toEqual([
        {
          index: 1,
          errors: [{ field: 'transaction_ref', message: expect.stringMatching(/well-formed/) }],
        },
      ]);
    });
  });

  describe('finding 5: impossible dates are refused everywhere, never rolled', () => {
    const feb31 = '2026-02-31T00:00:00Z';

    it('transacted_at 2026-02-31 is a 400, not stored as March 3', async () => {
      const body = event(a, { transacted_at: '2026-02-31T00:00:00Z' });
      validationError(await post(a, body));
      expect(await count(a, [body.transaction_ref as string])).toBe(0);
    });

    it.each([
      ['reporting redemptions', '/api/v1/reporting/redemptions'],
      ['reporting settlements', '/api/v1/reporting/settlements'],
      ['the funnel', '/api/v1/reporting/funnel'],
    ])('%s: from=2026-02-31 is a 400', async (_name, path) => {
      validationError(await api.http.get(path).query({ from: feb31 }).set('Authorization', a.auth));
    });

    it('the portal dashboard: from=2026-02-31 is a 400', async () => {
      validationError(await portalA.agent.get('/portal/api/dashboard').query({ from: feb31 }));
    });

    it('admin offer dates: expires_at 2026-02-31 is a 400', async () => {
      const res = await api.http
        .patch(`/admin/api/v1/offers/${a.offers[0].id}`)
        .set('Authorization', op())
        .send({ expires_at: '2027-02-31T00:00:00Z' });
      validationError(res);
    });
  });

  describe('finding 6: NUL bytes', () => {
    it('merchant resolve', async () => {
      validationError(
        await api.http
          .post('/api/v1/merchants/resolve')
          .set('Authorization', a.auth)
          .send({ identifiers: [{ merchant_identifier: 'CA\u0000' }] }),
      );
    });

    it('portal key names', async () => {
      validationError(
        await portalA.agent
          .post('/portal/api/api-keys')
          .set('X-CSRF-Token', portalA.csrf)
          .send({ name: 'key\u0000', scopes: ['offers'] }),
      );
    });

    it('admin names: institution and merchant', async () => {
      validationError(
        await api.http
          .post('/admin/api/v1/institutions')
          .set('Authorization', op())
          .send({ name: 'Bank\u0000', plan: 'growth' }),
      );
      validationError(
        await api.http
          .post('/admin/api/v1/merchants')
          .set('Authorization', op())
          .send({
            name: 'Shop\u0000',
            category: 'groceries',
            identifiers: [{ type: 'card_acceptor', value: uniq('CA') }],
          }),
      );
    });
  });

  describe('finding 7: JSON nested 5,000 deep', () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    it.each([
      [
        'offers add',
        () => api.http.post(`/api/v1/offers/${a.offers[0].id}/add`).set('Authorization', a.auth),
      ],
      [
        'merchant resolve',
        () => api.http.post('/api/v1/merchants/resolve').set('Authorization', a.auth),
      ],
      ['portal login', () => api.http.post('/portal/api/auth/login')],
      [
        'admin institutions',
        () => api.http.post('/admin/api/v1/institutions').set('Authorization', op()),
      ],
      ['transactions', () => api.http.post('/api/v1/transactions').set('Authorization', a.auth)],
    ])('%s: 400 validation_failed', async (_name, req) => {
      const res = await req().set('Content-Type', 'application/json').send(deep);
      validationError(res);
      expect(res.body.details).toEqual([
        { field: 'body', message: expect.stringMatching(/deeper/) },
      ]);
    });
  });

  describe('finding 9: __proto__ is an unknown field', () => {
    it('offers add', async () => {
      const res = await api.http
        .post(`/api/v1/offers/${a.offers[0].id}/add`)
        .set('Authorization', a.auth)
        .set('Content-Type', 'application/json')
        .send(`{"cardholder_token":"chk_${uniq()}","__proto__":{"x":1}}`);
      validationError(res);
      expect(res.body.details).toEqual([
        { field: '__proto__', message: 'is not an accepted field' },
      ]);
    });

    it('admin bodies', async () => {
      const res = await api.http
        .post('/admin/api/v1/institutions')
        .set('Authorization', op())
        .set('Content-Type', 'application/json')
        .send(`{"name":"${uniq('Bank ')}","plan":"growth","__proto__":{"plan":"enterprise"}}`);
      validationError(res);
    });
  });
});
