import { randomUUID } from 'crypto';
import { DataSource } from 'typeorm';
import { StepRef, WebhookScheduleRepository } from '@app/core';
import { dataSourceOptions } from '@app/db';
import { DEFAULT_EVENT_TYPES } from '@app/domain';
import { insertRedemptionDelivery, TEST_DATABASE_URL, uniq } from '@app/testing';

// WebhookScheduleRepository's statements against the real database, without the api or a worker: the
// delivery rows it creates, and the lease an attempt is claimed under.
describe('WebhookScheduleRepository (real PostgreSQL)', () => {
  const LEASE_MS = 2_000;
  let db: DataSource;
  let store: WebhookScheduleRepository;

  beforeAll(async () => {
    db = await new DataSource(dataSourceOptions(TEST_DATABASE_URL)).initialize();
    store = new WebhookScheduleRepository(db, LEASE_MS);
  });
  afterAll(() => db.destroy());

  /** An institution with a webhook URL; by default it receives every redemption event. */
  async function institution(eventTypes?: string[]): Promise<string> {
    const [i] = await db.query(
      `INSERT INTO institution (name, plan, webhook_url) VALUES ($1, 'starter', 'https://hooks.example.com/in') RETURNING id`,
      [uniq('Bank ')],
    );
    if (eventTypes)
      await db.query(`UPDATE institution SET webhook_event_types = $2 WHERE id = $1`, [
        i.id,
        eventTypes,
      ]);
    return i.id;
  }

  it("a new institution receives the domain's default event types (the column default)", async () => {
    const inst = await institution();
    const [row] = await db.query(`SELECT webhook_event_types FROM institution WHERE id = $1`, [
      inst,
    ]);
    expect(row.webhook_event_types).toEqual([...DEFAULT_EVENT_TYPES]);
  });

  describe('insertDeliveries', () => {
    it('one delivery per redemption and event type: asking again creates nothing', async () => {
      const inst = await institution();
      const { redemptionId } = await insertRedemptionDelivery(db, inst); // its completed delivery
      const ask = (event: string) =>
        db.transaction((m) =>
          store.insertDeliveries(m, [
            { institutionId: inst, redemptionId, event, payload: { event } },
          ]),
        );
      expect(await ask('redemption.completed')).toEqual([]);
      const [settled] = await ask('redemption.settled');
      expect(settled).toEqual(expect.any(String));
      expect(await ask('redemption.settled')).toEqual([]);
      const rows = await db.query(
        `SELECT event, status, payload FROM webhook_delivery WHERE id = $1`,
        [settled],
      );
      expect(rows).toEqual([
        {
          event: 'redemption.settled',
          status: 'pending',
          payload: { event: 'redemption.settled' },
        },
      ]);
    });

    it('only for the event types the institution receives; a test event always', async () => {
      const inst = await institution(['redemption.completed']);
      const { redemptionId } = await insertRedemptionDelivery(db, inst);
      const created = await db.transaction((m) =>
        store.insertDeliveries(m, [
          { institutionId: inst, redemptionId, event: 'redemption.reversed', payload: {} },
          { institutionId: inst, redemptionId: null, event: 'webhook.test', payload: {} },
        ]),
      );
      expect(created).toHaveLength(1);
      expect(
        await db.query(`SELECT event FROM webhook_delivery WHERE id = $1`, [created[0]]),
      ).toEqual([{ event: 'webhook.test' }]);
    });

    it('rows are written in the caller transaction: a rollback leaves none', async () => {
      const inst = await institution();
      const { redemptionId } = await insertRedemptionDelivery(db, inst);
      await db
        .transaction(async (m) => {
          await store.insertDeliveries(m, [
            { institutionId: inst, redemptionId, event: 'redemption.reversed', payload: {} },
          ]);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      expect(
        await db.query(`SELECT count(*)::int AS n FROM webhook_delivery WHERE redemption_id = $1`, [
          redemptionId,
        ]),
      ).toEqual([{ n: 1 }]);
    });
  });

  describe('claim and release', () => {
    it('one claimant at a time: the lease makes a second claim busy until it ends', async () => {
      const inst = await institution();
      const { id } = await insertRedemptionDelivery(db, inst);
      const first = await store.claim({ deliveryId: id, series: 0, attempt: 1 });
      expect(first).toMatchObject({
        kind: 'claimed',
        delivery: {
          id,
          institutionId: inst,
          attemptCount: 0,
          webhookUrl: 'https://hooks.example.com/in',
        },
      });
      const second = await store.claim({ deliveryId: id, series: 0, attempt: 1 });
      expect(second.kind).toBe('busy');
      const [{ lease_until }] = await db.query(
        `SELECT lease_until FROM webhook_delivery WHERE id = $1`,
        [id],
      );
      expect(second.kind === 'busy' && second.until.getTime()).toBe(lease_until.getTime());
      expect(lease_until.getTime() - Date.now()).toBeGreaterThan(LEASE_MS / 2);
      expect(lease_until.getTime() - Date.now()).toBeLessThanOrEqual(LEASE_MS);
    });

    it('a released lease can be claimed again; a stale token releases nothing', async () => {
      const inst = await institution();
      const { id } = await insertRedemptionDelivery(db, inst);
      const first = await store.claim({ deliveryId: id, series: 0, attempt: 1 });
      if (first.kind !== 'claimed') throw new Error(`expected a claim, got ${first.kind}`);
      const [{ lease_token }] = await db.query(
        `SELECT lease_token FROM webhook_delivery WHERE id = $1`,
        [id],
      );
      expect(await store.release(id, randomUUID())).toBe(false);
      expect((await store.claim({ deliveryId: id, series: 0, attempt: 1 })).kind).toBe('busy');
      expect(await store.release(id, lease_token)).toBe(true);
      expect((await store.claim({ deliveryId: id, series: 0, attempt: 1 })).kind).toBe('claimed');
    });

    it('a delivery not in this database, or a step not due, is done', async () => {
      expect(
        await store.claim({
          deliveryId: '00000000-0000-4000-8000-000000000000',
          series: 0,
          attempt: 1,
        }),
      ).toEqual({ kind: 'done' });
      const inst = await institution();
      const { id } = await insertRedemptionDelivery(db, inst);
      expect(await store.claim({ deliveryId: id, series: 0, attempt: 3 })).toEqual({
        kind: 'done',
      });
    });
  });

  // The claim locks its deliveries in id order; the relay's marks must too, or a mark holding a
  // higher id while waiting for a lower one the claim holds (the claim waiting for the higher)
  // is a deadlock: a second's wait for both, then one fails (seen in the bench at 50/s).
  describe('multi-row marks lock in id order', () => {
    const marks = {
      markEnqueued: (steps: StepRef[]) => store.markEnqueued(steps),
      touchEnqueued: (steps: StepRef[]) => store.touchEnqueued(steps),
    };
    it.each(Object.keys(marks) as (keyof typeof marks)[])(
      '%s waits for the lower id before it locks the higher one',
      async (mark) => {
        const inst = await institution();
        const ids = [
          (await insertRedemptionDelivery(db, inst)).id,
          (await insertRedemptionDelivery(db, inst)).id,
        ].sort();
        const [low, high] = ids;
        const step = (id: string): StepRef => ({ id, series: 0, attempt: 1, nextAttemptAt: null });
        const holder = db.createQueryRunner();
        const probe = db.createQueryRunner();
        await holder.startTransaction();
        try {
          await holder.query(`SELECT id FROM webhook_delivery WHERE id = $1 FOR UPDATE`, [low]);
          // Higher id first: a statement that locks in the order it was given takes `high` now.
          const marking = marks[mark]([step(high), step(low)]);
          await new Promise((r) => setTimeout(r, 300));
          await probe.startTransaction();
          const highLocked = await probe
            .query(`SELECT id FROM webhook_delivery WHERE id = $1 FOR UPDATE NOWAIT`, [high])
            .then(
              () => false,
              (e: { code?: string }) => (e.code === '55P03' ? true : Promise.reject(e)),
            );
          await probe.rollbackTransaction();
          await holder.commitTransaction();
          await marking;
          expect(highLocked).toBe(false);
          const rows = await db.query(
            `SELECT count(*)::int AS n FROM webhook_delivery WHERE id = ANY($1) AND enqueued_at IS NOT NULL`,
            [ids],
          );
          expect(rows).toEqual([{ n: 2 }]);
        } finally {
          if (holder.isTransactionActive) await holder.rollbackTransaction();
          await holder.release();
          await probe.release();
        }
      },
    );
  });
});
