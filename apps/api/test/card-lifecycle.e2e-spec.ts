// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-lifecycle-${process.pid}` });

import type { INestApplicationContext } from '@nestjs/common';
import { QUEUES } from '@app/queue';
import { createWorld, obliterateQueues, startApi, startWorker, TestApi, uniq } from '@app/testing';

/** The card lifecycle (authorization, clearing, void): program fields, validation, matching. */
describe('card lifecycle', () => {
  let api: TestApi;
  let worker: INestApplicationContext | undefined;
  const op = () => `Bearer ${api.operatorToken}`;

  beforeAll(async () => {
    api = await startApi();
    worker = await startWorker();
  });

  afterAll(async () => {
    await worker?.close();
    await obliterateQueues(api, [QUEUES.matching]);
    await api.close();
  });

  describe('program fields (admin API)', () => {
    it('absent until set (the defaults: clearing, 7 days); set, read back and changed', async () => {
      const created = await api.http
        .post('/admin/api/v1/institutions')
        .set('Authorization', op())
        .send({ name: uniq('Bank '), plan: 'growth' })
        .expect(201);
      expect(created.body.program.reward_on).toBeUndefined();
      expect(created.body.program.authorization_expiry_days).toBeUndefined();
      const patched = await api.http
        .patch(`/admin/api/v1/institutions/${created.body.id}`)
        .set('Authorization', op())
        .send({ program: { reward_on: 'authorization', authorization_expiry_days: 3 } })
        .expect(200);
      expect(patched.body.program).toMatchObject({
        reward_on: 'authorization',
        authorization_expiry_days: 3,
      });
      const read = await api.http
        .get(`/admin/api/v1/institutions/${created.body.id}`)
        .set('Authorization', op())
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
      const res = await api.http
        .post('/admin/api/v1/institutions')
        .set('Authorization', op())
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
      const w = await createWorld(api, { merchants: [{}] });
      for (const over of [
        { transaction_type: 'authorization' },
        { transaction_type: 'clearing', original_transaction_ref: 'auth-1' },
        { transaction_type: 'clearing' },
        { transaction_type: 'authorization_reversal', original_transaction_ref: 'auth-1' },
      ])
        await api.http
          .post('/api/v1/transactions')
          .set('Authorization', w.auth)
          .send(body(over))
          .expect(202);
      const batch = await api.http
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
      const w = await createWorld(api, { merchants: [{}] });
      const res = await api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send(body(over))
        .expect(400);
      expect(JSON.stringify(res.body)).toContain(message);
      expect(JSON.stringify(res.body)).toContain('original_transaction_ref');
    });
  });
});
