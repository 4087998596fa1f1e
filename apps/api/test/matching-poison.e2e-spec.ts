// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-poison-${process.pid}` });

import type { INestApplicationContext } from '@nestjs/common';
import { register } from 'prom-client';
import { DataSource } from 'typeorm';
import { MatchRelayService } from '@app/core';
import { createWorld, eventually, startApi, startWorker, TestApi, uniq, World } from '@app/testing';

/**
 * A transaction matching fails on every time (here: a trigger that refuses any status change of
 * rows whose reference carries this run's poison prefix, standing for a row that breaks the
 * matching statement) must not be retried forever nor hold back its chunk: the chunk is split
 * down to it, it is quarantined as match_failed with its reason, its neighbours are matched, the
 * relay leaves it alone, operators see it (admin API, metric) and can retry it after a fix.
 */
describe('poison matching chunks', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let db: DataSource;
  let w: World;
  const poison = uniq('poison-');
  const op = () => `Bearer ${api.operatorToken}`;

  beforeAll(async () => {
    api = await startApi();
    register.clear();
    worker = await startWorker();
    db = api.app.get(DataSource);
    w = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    await db.query(`
      CREATE OR REPLACE FUNCTION pg_temp_poison_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.transaction_ref LIKE '${poison}%' AND NEW.status NOT IN ('received', 'match_failed') THEN
          RAISE EXCEPTION 'poisoned row %', NEW.transaction_ref;
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(
      `CREATE TRIGGER "${poison}" BEFORE UPDATE ON transaction FOR EACH ROW EXECUTE FUNCTION pg_temp_poison_guard()`,
    );
  });
  afterAll(async () => {
    await db?.query(`DROP TRIGGER IF EXISTS "${poison}" ON transaction`).catch(() => undefined);
    await worker?.close();
    await api?.close();
  });

  const status = async (id: string) =>
    (await db.query(`SELECT status, match_error FROM transaction WHERE id = $1`, [id]))[0];

  it('splits the chunk down to the poison row, quarantines it, matches its neighbours; operators see and retry it', async () => {
    // The poison row's cardholder is enrolled alone, so its own redemption can be checked.
    const [token, poisonToken] = [`chk_${uniq()}`, `chk_${uniq()}`];
    for (const t of [token, poisonToken])
      await api.http
        .post(`/api/v1/offers/${w.offers[0].id}/add`)
        .set('Authorization', w.auth)
        .send({ cardholder_token: t })
        .expect(201);
    const item = (ref: string) => ({
      cardholder_token: ref.startsWith(poison) ? poisonToken : token,
      card_token: `ctk_${uniq()}`,
      merchant_identifier: w.merchants[0].identifiers[0].value,
      amount: 25,
      transaction_ref: ref,
      transacted_at: new Date().toISOString(),
    });
    const refs = Array.from({ length: 20 }, (_, i) => (i === 13 ? `${poison}-1` : uniq('ok-')));
    const res = await api.http
      .post('/api/v1/transactions/batch')
      .set('Authorization', w.auth)
      .send({ transactions: refs.map(item) })
      .expect(202);
    expect(res.body.accepted).toBe(20);
    const rows: { id: string; transaction_ref: string }[] = await db.query(
      `SELECT id, transaction_ref FROM transaction WHERE institution_id = $1 AND transaction_ref = ANY($2)`,
      [w.institution.id, refs],
    );
    const poisonId = rows.find((r) => r.transaction_ref.startsWith(poison))!.id;
    const others = rows.filter((r) => r.id !== poisonId).map((r) => r.id);

    await eventually(
      async () => (await status(poisonId)).status === 'match_failed',
      'the poison transaction to be quarantined',
      90_000,
      200,
    );
    expect((await status(poisonId)).match_error).toMatch(/poisoned row/);
    const neighbours: { status: string }[] = await db.query(
      `SELECT status FROM transaction WHERE id = ANY($1)`,
      [others],
    );
    // Every neighbour was processed (one redemption per enrollment: one matched, the rest not).
    expect(neighbours.filter((n) => n.status === 'matched')).toHaveLength(1);
    expect(neighbours.filter((n) => n.status === 'unmatched')).toHaveLength(18);

    // Out of later passes: the relay does not take it back, it stays quarantined.
    await api.app.get(MatchRelayService).runOnce();
    expect((await status(poisonId)).status).toBe('match_failed');

    // Operators see it: the admin list and the worker's metric.
    const list = await api.http
      .get('/admin/api/v1/match-failures')
      .query({ institution_id: w.institution.id })
      .set('Authorization', op())
      .expect(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({
        transaction_id: poisonId,
        institution_id: w.institution.id,
        transaction_ref: `${poison}-1`,
        reason: expect.stringMatching(/poisoned row/),
      }),
    ]);
    const metrics = await register.metrics();
    expect(
      Number(/^matching_failed_transactions (\d+)/m.exec(metrics)?.[1]),
    ).toBeGreaterThanOrEqual(1);

    // After the fix, an operator's retry matches it (and a second retry changes nothing).
    await db.query(`DROP TRIGGER "${poison}" ON transaction`);
    const retry = await api.http
      .post('/admin/api/v1/match-failures/retry')
      .set('Authorization', op())
      .send({ transaction_ids: [poisonId] })
      .expect(200);
    expect(retry.body).toEqual({ retried: 1, transaction_ids: [poisonId] });
    await eventually(
      async () => (await status(poisonId)).status === 'matched',
      'the retried transaction to be matched',
      30_000,
      200,
    );
    const again = await api.http
      .post('/admin/api/v1/match-failures/retry')
      .set('Authorization', op())
      .send({ transaction_ids: [poisonId] })
      .expect(200);
    expect(again.body).toEqual({ retried: 0, transaction_ids: [] });
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM redemption WHERE transaction_id = $1`,
      [poisonId],
    );
    expect(n).toBe(1);
  });
});
