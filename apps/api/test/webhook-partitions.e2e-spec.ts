import { DataSource } from 'typeorm';
import { DataLifecycleService, PartitionMover, PartitionsRepository } from '@app/core';
import { dataSourceOptions } from '@app/db';
import { addMonths, monthOf, partitionOf, partitionsWanted } from '@app/domain';
import {
  eventually,
  insertRedemptionDelivery,
  releaseDatabase,
  startApi,
  TestApi,
  uniq,
} from '@app/testing';

const DAY_MS = 86_400_000;
const KEEP = { value: 90, unit: 'days' as const };

/** Relations a plan reads (partitions by name). */
async function touched(db: DataSource, sql: string, params: unknown[]): Promise<string[]> {
  const [{ 'QUERY PLAN': plan }] = await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  const names = JSON.stringify(plan).match(/"Relation Name":"[a-z0-9_]+"/g) ?? [];
  return [...new Set(names.map((r) => r.split(':')[1].replaceAll('"', '')))].sort();
}

/** An attempt row as the attempt's record writes it (tenant and month copied from the delivery). */
async function insertAttempt(db: DataSource, deliveryId: string, n: number, copyKey = true) {
  await db.query(
    `INSERT INTO webhook_attempt (delivery_id, attempt_number, trigger, started_at, duration_ms, http_status,
                                  institution_id, delivery_created_at)
     SELECT d.id, $2, 'automatic', now(), 12, 200, CASE WHEN $3 THEN d.institution_id END,
            CASE WHEN $3 THEN d.created_at END
       FROM webhook_delivery d WHERE d.id = $1`,
    [deliveryId, n, copyKey],
  );
}

/**
 * webhook_delivery and webhook_attempt in monthly partitions (docs/retention.md): created ahead,
 * read by id in one month through webhook_delivery_key, dropped together by retention unless a
 * delivery in the month is still pending or an institution in it is under legal hold.
 */
describe('webhook partitions and retention', () => {
  let api: TestApi;
  let db: DataSource;
  let lifecycle: DataLifecycleService;
  let partitions: PartitionsRepository;
  const exists = async (name: string) =>
    (await db.query(`SELECT to_regclass($1) IS NOT NULL AS e`, [name]))[0].e as boolean;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    lifecycle = api.app.get(DataLifecycleService, { strict: false });
    partitions = new PartitionsRepository(db);
  });
  afterAll(() => api?.close());

  async function institution(): Promise<string> {
    const [i] = await db.query(
      `INSERT INTO institution (name, plan) VALUES ($1, 'starter') RETURNING id`,
      [uniq('Bank ')],
    );
    return i.id;
  }

  /** A delivery (and its redemption) created in the month `monthsAgo` back, with `status`. */
  async function deliveryIn(inst: string, monthsAgo: number, status: string) {
    const d = await insertRedemptionDelivery(db, inst);
    const month = addMonths(monthOf(new Date()), -monthsAgo);
    for (const t of ['webhook_delivery', 'webhook_attempt'])
      await partitions.create(t, partitionOf(t, month));
    const at = new Date(month.getTime() + DAY_MS);
    // Moved to its month as an old row would be: the row and its key row together.
    await db.transaction(async (m) => {
      await m.query(`UPDATE webhook_delivery_key SET created_at = $2 WHERE id = $1`, [d.id, at]);
      await m.query(`UPDATE webhook_delivery SET created_at = $2, status = $3 WHERE id = $1`, [
        d.id,
        at,
        status,
      ]);
    });
    await insertAttempt(db, d.id, 1);
    return { ...d, month: partitionOf('webhook_delivery', month) };
  }

  it('the months of both tables exist through two ahead; a run creates the missing ones, once', async () => {
    const later = addMonths(monthOf(new Date()), 5);
    const created: string[] = [];
    try {
      for (const table of ['webhook_delivery', 'webhook_attempt']) {
        const names = (await partitions.list(table)).map((p) => p.name);
        expect(names).toEqual(
          expect.arrayContaining(partitionsWanted(table, new Date(), KEEP).map((p) => p.name)),
        );
      }
      created.push(...(await lifecycle.upkeep(later)));
      for (const table of ['webhook_delivery', 'webhook_attempt'])
        for (const p of partitionsWanted(table, later, KEEP))
          expect(await exists(p.name)).toBe(true);
      expect(created).toContain(partitionOf('webhook_attempt', addMonths(later, 2)).name);
      expect(await lifecycle.upkeep(later)).toEqual([]);
    } finally {
      for (const name of created) await db.query(`DROP TABLE IF EXISTS ${name}`);
    }
  });

  it('reads by delivery id touch the delivery’s month only', async () => {
    const inst = await institution();
    const d = await insertRedemptionDelivery(db, inst);
    const month = partitionOf('webhook_delivery', new Date()).name;
    // The worker's and the portal's by-id statements (deliveryById / attemptsOfDelivery).
    const { deliveryById, attemptsOfDelivery } =
      await import('../../../libs/core/src/webhooks/delivery-key');
    const one = await touched(
      db,
      `SELECT d.status FROM webhook_delivery d WHERE ${deliveryById('d', '$1::uuid')}`,
      [d.id],
    );
    // The plan names every month; the executor opens one (runtime pruning): read it from ANALYZE.
    const [{ 'QUERY PLAN': analyzed }] = await db.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) SELECT d.status FROM webhook_delivery d WHERE ${deliveryById('d', '$1::uuid')}`,
      [d.id],
    );
    const ran = (
      JSON.stringify(analyzed).match(/"Relation Name":"[a-z0-9_]+"[^}]*?"Actual Loops":[1-9]/g) ??
      []
    )
      .map((x) => x.split('"')[3])
      .filter((x) => x.startsWith('webhook_delivery_p'));
    expect(one.length).toBeGreaterThan(0);
    expect([...new Set(ran)]).toEqual([month]);
    const [{ 'QUERY PLAN': attempts }] = await db.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM webhook_attempt a WHERE ${attemptsOfDelivery('a', '$1::uuid')}`,
      [d.id],
    );
    const ranAttempts = (
      JSON.stringify(attempts).match(/"Relation Name":"[a-z0-9_]+"[^}]*?"Actual Loops":[1-9]/g) ??
      []
    )
      .map((x) => x.split('"')[3])
      .filter((x) => x.startsWith('webhook_attempt_p'));
    expect([...new Set(ranAttempts)]).toEqual([partitionOf('webhook_attempt', new Date()).name]);
  });

  it('one delivery per redemption and event, without a time bound', async () => {
    const inst = await institution();
    const d = await insertRedemptionDelivery(db, inst);
    const again = await db.query(
      `INSERT INTO webhook_delivery (institution_id, redemption_id, event, payload, created_at)
       VALUES ($1, $2, 'redemption.completed', '{}', now() + interval '40 days') RETURNING id`,
      [inst, d.redemptionId],
    );
    expect(again).toEqual([]);
    expect(
      await db.query(`SELECT count(*)::int AS n FROM webhook_delivery WHERE redemption_id = $1`, [
        d.redemptionId,
      ]),
    ).toEqual([{ n: 1 }]);
  });

  it('retention drops an expired month of deliveries with its attempts, and keeps a month holding a pending delivery (the run says why)', async () => {
    const inst = await institution();
    const done = await deliveryIn(inst, 7, 'delivered');
    const pending = await deliveryIn(inst, 8, 'pending');
    const attemptsMonth = (m: Date) => partitionOf('webhook_attempt', m).name;

    const run = await lifecycle.run(new Date());
    expect(run.dropped).toEqual(
      expect.arrayContaining([done.month.name, attemptsMonth(done.month.from)]),
    );
    expect(await exists(done.month.name)).toBe(false);
    expect(await exists(attemptsMonth(done.month.from))).toBe(false);
    // The money record stays; the key row too (the unique key has no time bound).
    expect(
      await db.query(`SELECT id FROM redemption WHERE id = $1`, [done.redemptionId]),
    ).toHaveLength(1);
    expect(run.kept).toContainEqual({ partition: pending.month.name, reason: 'pending_delivery' });
    expect(await exists(pending.month.name)).toBe(true);
    expect(await exists(attemptsMonth(pending.month.from))).toBe(true);
    expect(
      await db.query(`SELECT count(*)::int AS n FROM webhook_attempt WHERE delivery_id = $1`, [
        pending.id,
      ]),
    ).toEqual([{ n: 1 }]);
    const [recorded] = await db.query(`SELECT kept FROM data_lifecycle_run WHERE tick = $1`, [
      run.tick,
    ]);
    expect(recorded.kept).toContainEqual({
      partition: pending.month.name,
      reason: 'pending_delivery',
    });
    const metrics = await import('prom-client').then((p) =>
      p.register.getSingleMetricAsString('data_lifecycle_partitions_total'),
    );
    expect(metrics).toContain('action="kept_pending_delivery"');
    expect(metrics).toMatch(/table="webhook_attempt",action="dropped"/);

    // Once the delivery is settled, the next run drops the month.
    await db.query(`UPDATE webhook_delivery SET status = 'failed' WHERE id = $1`, [pending.id]);
    const next = await lifecycle.run(new Date());
    expect(next.dropped).toContain(pending.month.name);
    expect(await exists(pending.month.name)).toBe(false);
  });

  it('a drop waits for a writer that holds the deliveries’ table and then reaches the expired month, without a deadlock', async () => {
    const inst = await institution();
    const d = await deliveryIn(inst, 10, 'delivered');
    // A writer as the webhook relay is mid-transaction: the parent table held, the month not yet.
    const writer = db.createQueryRunner();
    await writer.connect();
    await writer.startTransaction();
    try {
      await writer.query(`LOCK TABLE ONLY webhook_delivery IN ROW EXCLUSIVE MODE`);
      const dropping = partitions.dropUnlessHeld('webhook_delivery', d.month, [
        partitionOf('webhook_attempt', d.month.from),
      ]);
      // The drop is waiting for a lock on the parent (it takes the parent before the month).
      await eventually(async () => {
        const [{ n }] = await db.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'webhook_delivery'::regclass`,
        );
        return n > 0;
      }, 'the drop waiting for the deliveries’ table');
      // The writer reaches the expired month; before, the drop held it and waited for the parent.
      await writer.query(`LOCK TABLE ${d.month.name} IN ROW EXCLUSIVE MODE`);
      await writer.commitTransaction();
      await expect(dropping).resolves.toEqual({ dropped: true });
    } finally {
      if (writer.isTransactionActive) await writer.rollbackTransaction();
      await writer.release();
    }
    expect(await exists(d.month.name)).toBe(false);
  });

  it('a legal hold keeps an expired month of deliveries and attempts', async () => {
    const inst = await institution();
    const d = await deliveryIn(inst, 9, 'delivered');
    await db.query(`INSERT INTO legal_hold (institution_id, reason) VALUES ($1, 'case 9')`, [inst]);
    try {
      const run = await lifecycle.run(new Date());
      expect(run.kept).toContainEqual({
        partition: d.month.name,
        reason: 'legal_hold',
        institutions: [inst],
      });
      expect(await exists(d.month.name)).toBe(true);
    } finally {
      await db.query(`DELETE FROM legal_hold WHERE institution_id = $1`, [inst]);
    }
    expect((await lifecycle.run(new Date())).dropped).toContain(d.month.name);
  });

  it('GET /admin/api/v1/retention lists the webhook classes with their partitions', async () => {
    const res = await api.http
      .get('/admin/api/v1/retention')
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .expect(200);
    type Reported = { class: string; partitioned: boolean; partitions: { name: string }[] };
    const byClass = Object.fromEntries((res.body.data as Reported[]).map((c) => [c.class, c]));
    for (const [cls, table] of [
      ['webhook_attempts', 'webhook_attempt'],
      ['webhook_deliveries', 'webhook_delivery'],
    ]) {
      expect(byClass[cls].partitioned).toBe(true);
      expect(byClass[cls].partitions.map((p) => p.name)).toContain(
        partitionOf(table, new Date()).name,
      );
    }
  });
});

describe('moving an existing install’s webhook rows into partitions', () => {
  it('the upgrade moves pending deliveries at once; the move, stopped and resumed while the service writes, loses and doubles nothing', async () => {
    // The current release's database, with deliveries and attempts over the last months.
    const { url, old } = await releaseDatabase('WebhookPartitions', 'webhook_move');
    const [{ id: inst }] = await old.query(
      `INSERT INTO institution (name, plan) VALUES ('Old Bank', 'growth') RETURNING id`,
    );
    const seeded: { id: string; status: string }[] = [];
    let n = 0;
    for (const [daysAgo, count] of [
      [200, 20],
      [60, 60],
      [20, 100],
      [0, 120],
    ] as const)
      for (let i = 0; i < count; i++) {
        const d = await insertRedemptionDelivery(old, inst);
        const status = n++ % 10 === 0 ? 'pending' : 'delivered';
        await old.query(`UPDATE webhook_delivery SET created_at = $2, status = $3 WHERE id = $1`, [
          d.id,
          new Date(Date.now() - daysAgo * DAY_MS - i * 60_000),
          status,
        ]);
        // Attempts written before the preparatory release carry no tenant or month: half of them.
        await insertAttempt(old, d.id, 1, i % 2 === 0);
        if (status === 'delivered') await insertAttempt(old, d.id, 2, i % 2 === 0);
        seeded.push({ id: d.id, status });
      }
    await old.destroy();
    const pendingIds = seeded.filter((s) => s.status === 'pending').map((s) => s.id);
    const attemptsSeeded = seeded.length * 2 - pendingIds.length;

    const ds = await new DataSource(dataSourceOptions(url.toString())).initialize();
    try {
      await ds.runMigrations();
      const count = (sql: string, p: unknown[] = []) => ds.query(sql, p).then(([r]) => Number(r.n));
      // Every pending delivery (with its attempts) is in the partitioned tables at once.
      expect(
        await count(`SELECT count(*) AS n FROM webhook_delivery WHERE id = ANY($1::uuid[])`, [
          pendingIds,
        ]),
      ).toBe(pendingIds.length);
      expect(await count(`SELECT count(*) AS n FROM webhook_delivery_unpartitioned`)).toBe(
        seeded.length - pendingIds.length,
      );

      const repo = new PartitionsRepository(ds);
      await expect(
        new PartitionMover(repo).moveAll(50, () => {
          throw new Error('stopped');
        }),
      ).rejects.toThrow('stopped');
      expect(await count(`SELECT count(*) AS n FROM webhook_delivery`)).toBe(
        pendingIds.length + 50,
      );
      // Resumed while the service writes new deliveries (and their attempts).
      let writing = true;
      const written: string[] = [];
      const writer = (async () => {
        while (writing || written.length === 0) {
          const d = await insertRedemptionDelivery(ds, inst);
          await insertAttempt(ds, d.id, 1);
          written.push(d.id);
        }
      })();
      const reports = await new PartitionMover(repo).moveAll(40);
      writing = false;
      await writer;
      // This earlier release's transactions are copied by the same run (transaction-partitions e2e).
      expect(reports.filter((r) => r.table !== 'transaction')).toEqual([
        expect.objectContaining({
          table: 'webhook_delivery',
          moved: seeded.length - pendingIds.length - 50,
          finished: true,
        }),
      ]);
      for (const t of ['webhook_delivery_unpartitioned', 'webhook_attempt_unpartitioned'])
        expect(await count(`SELECT count(to_regclass($1)) AS n`, [t])).toBe(0);
      expect(
        await count(`SELECT count(*) AS n FROM pg_proc WHERE proname = 'webhook_delivery_move'`),
      ).toBe(0);

      const total = seeded.length + written.length;
      expect(await count(`SELECT count(*) AS n FROM webhook_delivery`)).toBe(total);
      expect(await count(`SELECT count(DISTINCT id) AS n FROM webhook_delivery`)).toBe(total);
      expect(
        await count(`SELECT count(*) AS n FROM webhook_delivery WHERE id = ANY($1::uuid[])`, [
          seeded.map((s) => s.id),
        ]),
      ).toBe(seeded.length);
      // Every delivery has its key row; every attempt its delivery's tenant and month.
      expect(
        await count(
          `SELECT count(*) AS n FROM webhook_delivery d JOIN webhook_delivery_key k
              ON k.institution_id = d.institution_id AND k.id = d.id AND k.created_at = d.created_at`,
        ),
      ).toBe(total);
      expect(await count(`SELECT count(*) AS n FROM webhook_attempt`)).toBe(
        attemptsSeeded + written.length,
      );
      expect(
        await count(
          `SELECT count(*) AS n FROM webhook_attempt a JOIN webhook_delivery d
              ON d.institution_id = a.institution_id AND d.created_at = a.delivery_created_at AND d.id = a.delivery_id`,
        ),
      ).toBe(attemptsSeeded + written.length);
      // The long-ago month got its partitions; running again has nothing to do.
      const longAgo = new Date(Date.now() - 200 * DAY_MS);
      expect((await repo.list('webhook_delivery')).map((p) => p.name)).toContain(
        partitionOf('webhook_delivery', longAgo).name,
      );
      expect((await repo.list('webhook_attempt')).map((p) => p.name)).toContain(
        partitionOf('webhook_attempt', longAgo).name,
      );
      expect(await new PartitionMover(repo).moveAll(40)).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });
});
