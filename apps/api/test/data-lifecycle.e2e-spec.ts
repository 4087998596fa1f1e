import { DataSource } from 'typeorm';
import { DataLifecycleService, PartitionMover, PartitionsRepository } from '@app/core';
import { dataSourceOptions } from '@app/db';
import {
  addMonths,
  lifecycleTick,
  monthOf,
  Partition,
  partitionOf,
  partitionsAhead,
  partitionsWanted,
} from '@app/domain';
import {
  eventually,
  insertRedemptionDelivery,
  releaseDatabase,
  startApi,
  startWorker,
  TestApi,
  uniq,
} from '@app/testing';

const TABLE = 'engagement_event';
const HOUR_MS = 3_600_000;

/** The insert both the previous release and this one make (EngagementEventsRepository). */
const INSERT_EVENTS = `INSERT INTO engagement_event (institution_id, kind, cardholder_token, offer_id, occurred_at)
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::timestamptz[])`;

async function insertEvents(db: DataSource, institutionId: string, at: Date, n: number) {
  const list = <T>(v: T) => Array.from({ length: n }, () => v);
  await db.query(INSERT_EVENTS, [
    list(institutionId),
    list('impression'),
    Array.from({ length: n }, () => `chk_${uniq()}`),
    list(null),
    list(at.toISOString()),
  ]);
}

describe('the worker', () => {
  it('runs the hour’s partition upkeep and retention from its start, and records it', async () => {
    const since = lifecycleTick(new Date());
    const worker = await startWorker();
    try {
      const db = worker.get(DataSource);
      // This worker's run, or that of another worker of the suite which took the hour first.
      const run = await eventually(
        async () =>
          (
            (await db.query(
              `SELECT tick, error FROM data_lifecycle_run WHERE tick >= $1 AND finished_at IS NOT NULL`,
              [since],
            )) as { tick: Date; error: string | null }[]
          )[0],
        'a finished data lifecycle run this hour',
      );
      expect(run.error).toBeNull();
    } finally {
      await worker.close();
    }
  });
});

/**
 * Monthly partitions of engagement_event (created ahead, dropped whole by retention, under legal
 * hold kept), the retention report, and the move of an existing install's rows (docs/retention.md).
 */
describe('partitions and retention', () => {
  let api: TestApi;
  let db: DataSource;
  let lifecycle: DataLifecycleService;
  let partitions: PartitionsRepository;
  const op = () => `Bearer ${api.operatorToken}`;
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

  /** A month long past retention, with `n` events of each institution in it. */
  async function oldMonth(monthsAgo: number, rows: [string, number][]): Promise<Partition> {
    const p = partitionOf(TABLE, addMonths(monthOf(new Date()), -monthsAgo));
    await partitions.create(TABLE, p);
    for (const [inst, n] of rows)
      await insertEvents(db, inst, new Date(p.from.getTime() + HOUR_MS), n);
    return p;
  }

  it('every month a row may be kept in exists, through two ahead; a run creates those missing, once', async () => {
    const keep = { value: 13, unit: 'months' as const };
    const names = async () => (await partitions.list(TABLE)).map((p) => p.name);
    expect(await names()).toEqual(
      expect.arrayContaining(partitionsWanted(TABLE, new Date(), keep).map((p) => p.name)),
    );
    // Fourteen months on, the months from then on are created, and a second run creates none.
    const later = addMonths(monthOf(new Date()), 14);
    const before = new Set(await names());
    const wanted = partitionsWanted(TABLE, later, keep);
    const missing = wanted.filter((p) => !before.has(p.name));
    expect(missing.map((p) => p.name)).toContain(partitionsAhead(TABLE, later)[2].name);
    // The webhook tables' and transactions' months are created by the same run (webhook-partitions
    // and transaction-partitions e2e).
    const created: string[] = [];
    try {
      created.push(...(await lifecycle.upkeep(later)));
      expect(created.filter((n) => n.startsWith(TABLE))).toEqual(missing.map((p) => p.name));
      expect(await lifecycle.upkeep(later)).toEqual([]);
      // A row of the furthest month lands in its partition.
      const inst = await institution();
      const last = wanted[wanted.length - 1];
      await insertEvents(db, inst, new Date(last.to.getTime() - 1), 1);
      const [row] = await db.query(
        `SELECT tableoid::regclass::text AS p FROM engagement_event WHERE institution_id = $1`,
        [inst],
      );
      expect(row.p).toBe(last.name);
    } finally {
      for (const name of created) await db.query(`DROP TABLE IF EXISTS ${name}`);
    }
  });

  it('a funnel read of an hour touches only its month (partition pruning)', async () => {
    const inst = await institution();
    const now = new Date();
    const [{ 'QUERY PLAN': plan }] = await db.query(
      `EXPLAIN (FORMAT JSON) SELECT count(*) FROM engagement_event e
        WHERE e.institution_id = $1 AND e.kind = 'impression' AND e.occurred_at >= $2 AND e.occurred_at < $3`,
      [inst, new Date(now.getTime() - HOUR_MS / 2), now],
    );
    const relations = JSON.stringify(plan).match(/"Relation Name":"[a-z0-9_]+"/g) ?? [];
    const touched = new Set(relations.map((r) => r.split(':')[1].replaceAll('"', '')));
    expect([...touched]).toEqual([
      ...new Set([
        partitionOf(TABLE, new Date(now.getTime() - HOUR_MS / 2)).name,
        partitionOf(TABLE, now).name,
      ]),
    ]);
  });

  it('retention drops a month past its setting whole, and keeps money records, deliveries and funnel rollups', async () => {
    const inst = await institution();
    const old = await oldMonth(30, [[inst, 40]]);
    // A redemption (money) and its pending delivery from that month.
    const delivery = await insertRedemptionDelivery(db, inst);
    await db.query(`UPDATE redemption SET created_at = $2 WHERE id = $1`, [
      delivery.redemptionId,
      old.from,
    ]);
    const rollup = () =>
      db
        .query(
          `SELECT COALESCE(sum(count), 0)::int AS n FROM engagement_hourly WHERE institution_id = $1`,
          [inst],
        )
        .then(([r]) => r.n as number);
    expect(await rollup()).toBe(40);

    const run = await lifecycle.run(new Date());
    expect(run.dropped).toContain(old.name);
    expect(await exists(old.name)).toBe(false);
    expect(
      await db.query(`SELECT count(*)::int AS n FROM engagement_event WHERE institution_id = $1`, [
        inst,
      ]),
    ).toEqual([{ n: 0 }]);
    expect(
      await db.query(`SELECT id FROM redemption WHERE id = $1`, [delivery.redemptionId]),
    ).toHaveLength(1);
    expect(
      await db.query(`SELECT status FROM webhook_delivery WHERE id = $1`, [delivery.id]),
    ).toEqual([{ status: 'pending' }]);
    expect(await rollup()).toBe(40);
    const [recorded] = await db.query(
      `SELECT dropped_partitions, error, finished_at FROM data_lifecycle_run WHERE tick = $1`,
      [run.tick],
    );
    expect(recorded.dropped_partitions).toContain(old.name);
    expect(recorded.error).toBeNull();
    expect(recorded.finished_at).not.toBeNull();
  });

  it('a legal hold keeps a month holding the institution’s rows (the run says why); lifted, the next run drops it', async () => {
    const held = await institution();
    const other = await institution();
    await api.http
      .put(`/admin/api/v1/institutions/${held}/legal-hold`)
      .set('Authorization', op())
      .send({ reason: 'Litigation hold, case 7' })
      .expect(200)
      .expect((r) =>
        expect(r.body).toEqual({
          institution_id: held,
          reason: 'Litigation hold, case 7',
          placed_at: expect.any(String),
        }),
      );
    const old = await oldMonth(31, [
      [held, 3],
      [other, 5],
    ]);

    const kept = await lifecycle.run(new Date());
    expect(kept.dropped).not.toContain(old.name);
    expect(kept.kept).toContainEqual({
      partition: old.name,
      reason: 'legal_hold',
      institutions: [held],
    });
    expect(await exists(old.name)).toBe(true);
    const list = await api.http
      .get('/admin/api/v1/legal-holds')
      .set('Authorization', op())
      .expect(200);
    expect(list.body.data).toContainEqual(expect.objectContaining({ institution_id: held }));

    await api.http
      .delete(`/admin/api/v1/institutions/${held}/legal-hold`)
      .set('Authorization', op())
      .expect(204);
    const dropped = await lifecycle.run(new Date());
    expect(dropped.dropped).toContain(old.name);
    expect(await exists(old.name)).toBe(false);

    await api.http
      .delete(`/admin/api/v1/institutions/${held}/legal-hold`)
      .set('Authorization', op())
      .expect(404)
      .expect((r) => expect(r.body.error).toBe('legal_hold_not_found'));
    await api.http
      .put(`/admin/api/v1/institutions/00000000-0000-4000-8000-000000000000/legal-hold`)
      .set('Authorization', op())
      .send({ reason: 'x' })
      .expect(404)
      .expect((r) => expect(r.body.error).toBe('institution_not_found'));
  });

  it('one run an hour across workers', async () => {
    const at = new Date(Date.now() + 5 * HOUR_MS);
    const runs = await Promise.all([1, 2, 3].map(() => lifecycle.runHour(at)));
    expect(runs.filter((r) => r !== null)).toHaveLength(1);
    expect(await lifecycle.runHour(at)).toBeNull();
  });

  it('GET /admin/api/v1/retention: each class, its setting, partitions and next drop', async () => {
    await api.http.get('/admin/api/v1/retention').expect(401);
    const res = await api.http
      .get('/admin/api/v1/retention')
      .set('Authorization', op())
      .expect(200);
    interface Reported {
      class: string;
      setting: { value: number; unit: string };
      partitioned: boolean;
      oldest_kept_at: string | null;
      partitions: { name: string; from: string; to: string }[];
      next_drop: { partition: string; at: string } | null;
    }
    const byClass = Object.fromEntries((res.body.data as Reported[]).map((c) => [c.class, c]));
    expect(Object.keys(byClass)).toEqual([
      'transactions',
      'engagement_events',
      'webhook_attempts',
      'webhook_deliveries',
    ]);
    const transactions = byClass.transactions;
    expect(transactions.setting).toEqual({ value: 25, unit: 'months' });
    expect(transactions.partitioned).toBe(true);
    const month = partitionOf('transaction', new Date());
    expect(transactions.partitions).toContainEqual({
      name: month.name,
      from: month.from.toISOString(),
      to: month.to.toISOString(),
    });
    expect(transactions.oldest_kept_at).toBe(transactions.partitions[0].from);
    expect(transactions.next_drop).toEqual({
      partition: transactions.partitions[0].name,
      at: addMonths(new Date(transactions.partitions[0].to), 25).toISOString(),
    });
    expect(byClass.webhook_attempts.setting).toEqual({ value: 90, unit: 'days' });
    const events = byClass.engagement_events;
    expect(events.setting).toEqual({ value: 13, unit: 'months' });
    expect(events.partitioned).toBe(true);
    const current = partitionOf(TABLE, new Date());
    expect(events.partitions).toContainEqual({
      name: current.name,
      from: current.from.toISOString(),
      to: current.to.toISOString(),
    });
    const oldest = events.partitions[0];
    expect(events.oldest_kept_at).toBe(oldest.from);
    expect(events.next_drop).toEqual({
      partition: oldest.name,
      at: addMonths(new Date(oldest.to), 13).toISOString(),
    });
  });
});

describe('moving an existing install’s rows into partitions', () => {
  it('the upgrade renames the old table aside; the move, stopped and resumed while both versions write, loses and doubles nothing', async () => {
    // The current release's database, with events over the last months and one long ago.
    const { url, old } = await releaseDatabase('DataLifecycle', 'partition_move');
    const [{ id: inst }] = await old.query(
      `INSERT INTO institution (name, plan) VALUES ('Old Bank', 'growth') RETURNING id`,
    );
    const now = Date.now();
    for (const [monthsAgo, n] of [
      [20, 200],
      [2, 500],
      [1, 1000],
      [0, 1500],
    ] as const)
      await insertEvents(old, inst, new Date(now - monthsAgo * 31 * 24 * HOUR_MS), n);
    const seeded: string[] = (await old.query(`SELECT id FROM engagement_event ORDER BY id`)).map(
      (r: { id: string }) => r.id,
    );
    await old.destroy();

    const ds = await new DataSource(dataSourceOptions(url.toString())).initialize();
    try {
      await ds.runMigrations();
      const count = (sql: string) => ds.query(sql).then(([r]) => Number(r.n));
      expect(await count(`SELECT count(*) AS n FROM engagement_event_unpartitioned`)).toBe(3200);
      expect(await count(`SELECT count(*) AS n FROM engagement_event`)).toBe(0);

      const repo = new PartitionsRepository(ds);
      // A move stopped after its first batch (as if killed)...
      await expect(
        new PartitionMover(repo).moveAll(100, () => {
          throw new Error('stopped');
        }),
      ).rejects.toThrow('stopped');
      expect(await count(`SELECT count(*) AS n FROM engagement_event`)).toBe(100);
      // ...then resumed while the service (either version: one statement) keeps writing.
      let writing = true;
      let written = 0;
      const writer = (async () => {
        while (writing || written === 0) {
          await insertEvents(ds, inst, new Date(), 25);
          written += 25;
        }
      })();
      const reports = await new PartitionMover(repo).moveAll(250);
      writing = false;
      await writer;

      expect(reports).toEqual([
        expect.objectContaining({ table: TABLE, moved: 3100, finished: true }),
      ]);
      expect(await count(`SELECT count(to_regclass('engagement_event_unpartitioned')) AS n`)).toBe(
        0,
      );
      expect(await count(`SELECT count(*) AS n FROM engagement_event`)).toBe(3200 + written);
      expect(await count(`SELECT count(DISTINCT id) AS n FROM engagement_event`)).toBe(
        3200 + written,
      );
      const [{ n: kept }] = await ds.query(
        `SELECT count(*)::int AS n FROM engagement_event WHERE id = ANY($1::bigint[])`,
        [seeded],
      );
      expect(kept).toBe(3200);
      // The rollups counted each event once: moved rows were counted when first written.
      expect(await count(`SELECT sum(count) AS n FROM engagement_hourly`)).toBe(3200 + written);
      // The long-ago month got its partition.
      const months = (await repo.list(TABLE)).map((p) => p.name);
      expect(months).toContain(partitionOf(TABLE, new Date(now - 20 * 31 * 24 * HOUR_MS)).name);
      // Running it again has nothing to do.
      expect(await new PartitionMover(repo).moveAll(250)).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });
});
