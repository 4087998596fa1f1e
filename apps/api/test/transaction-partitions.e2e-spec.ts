import { DataSource } from 'typeorm';
import {
  DataLifecycleService,
  PartitionMover,
  PartitionsRepository,
  TransactionStore,
} from '@app/core';
import { dataSourceOptions } from '@app/db';
import {
  addMonths,
  DAY_MS,
  monthOf,
  partitionOf,
  partitionsAhead,
  partitionsWanted,
  TransactionEvent,
} from '@app/domain';
import {
  apiAndWorker,
  createWorld,
  enrollBeforePurchase,
  eventually,
  releaseDatabase,
  startApi,
  TestApi,
  uniq,
  World,
} from '@app/testing';

/**
 * The transaction table's idempotency key and what lets a month of transactions leave
 * (docs/retention.md): transaction_key decides duplicates with no time bound, money records keep
 * what they need of their purchase and hold no foreign key to it.
 */
describe('transactions: the idempotency key and money records without a foreign key', () => {
  let api: TestApi;
  let db: DataSource;
  let world: World;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    world = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
  });
  afterAll(() => api.close());

  const event = (overrides: Record<string, unknown> = {}) => ({
    cardholder_token: `chk_${uniq()}`,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: world.merchants[0].identifiers[0].value,
    merchant_identifier_type: 'card_acceptor',
    amount: 25,
    transaction_ref: uniq('ref-'),
    transacted_at: new Date().toISOString(),
    ...overrides,
  });
  const key = async (ref: string) =>
    (
      await db.query(
        `SELECT transaction_id, received_at FROM transaction_key WHERE institution_id = $1 AND transaction_ref = $2`,
        [world.institution.id, ref],
      )
    )[0] as { transaction_id: string; received_at: Date } | undefined;

  it('a post writes the key with the transaction’s id and month; a repeat is a duplicate through the key', async () => {
    const body = event();
    const first = await api.http
      .post('/api/v1/transactions')
      .set('Authorization', world.auth)
      .send(body)
      .expect(202);
    const k = await key(body.transaction_ref);
    expect(k?.transaction_id).toBe(first.body.id);
    const [t] = await db.query(`SELECT received_at FROM transaction WHERE id = $1`, [
      first.body.id,
    ]);
    expect(k!.received_at.toISOString()).toBe(t.received_at.toISOString());

    const batch = await api.http
      .post('/api/v1/transactions/batch')
      .set('Authorization', world.auth)
      .send({ transactions: [body, event()] })
      .expect(202);
    expect(batch.body).toMatchObject({ accepted: 1, duplicates: 1, duplicate_indexes: [0] });
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
      [world.institution.id, body.transaction_ref],
    );
    expect(n).toBe(1);
  });

  it('new transactions get time-ordered ids (UUID version 7): each later post’s id sorts after the earlier ones', async () => {
    // Posts in turn, each answered before the next (a round trip takes well over a millisecond).
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await api.http
        .post('/api/v1/transactions')
        .set('Authorization', world.auth)
        .send(event())
        .expect(202);
      ids.push(r.body.id);
    }
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    // The first 48 bits are the time of the insert, in milliseconds.
    const ms = parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16);
    expect(Math.abs(ms - Date.now())).toBeLessThan(60_000);
  });

  it('a row inserted without its key (the previous release, SQL by hand) gets one; a second row of that reference is refused', async () => {
    const ref = uniq('old-');
    const insert = () =>
      db.query(
        `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, amount, transacted_at, source)
         VALUES ($1, $2, 'chk_old', 10, now(), 'api') RETURNING id`,
        [world.institution.id, ref],
      );
    const [{ id }] = await insert();
    expect((await key(ref))?.transaction_id).toBe(id);
    await expect(insert()).rejects.toThrow(/duplicate key/);
    // And the api's post of it is a duplicate.
    const res = await api.http
      .post('/api/v1/transactions')
      .set('Authorization', world.auth)
      .send(event({ transaction_ref: ref }));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('duplicate');
  });

  it('money records hold no foreign key to transaction; a redemption stores when its purchase happened', async () => {
    const fks: { name: string }[] = await db.query(
      `SELECT conname AS name FROM pg_constraint WHERE contype = 'f' AND confrelid = 'transaction'::regclass`,
    );
    expect(fks).toEqual([]);
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM information_schema.columns
        WHERE table_name = 'redemption' AND column_name IN ('transaction_ref', 'transacted_at', 'purchase_amount')`,
    );
    expect(n).toBe(3);
  });
});

/**
 * transaction partitioned by month of received_at: partitions ahead, a reference duplicate across
 * months, and retention dropping a month under money records that keep reading right.
 */
describe('transactions: monthly partitions and retention', () => {
  const t = apiAndWorker();
  let w: World;
  const TABLE = 'transaction';

  beforeAll(async () => {
    w = await createWorld(t.api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
  });

  const body = (overrides: Record<string, unknown> = {}) => ({
    cardholder_token: `chk_${uniq()}`,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: w.merchants[0].identifiers[0].value,
    merchant_identifier_type: 'card_acceptor',
    amount: 25,
    transaction_ref: uniq('ref-'),
    transacted_at: new Date().toISOString(),
    ...overrides,
  });
  const post = (b: Record<string, unknown>) =>
    t.api.http.post('/api/v1/transactions').set('Authorization', w.auth).send(b);
  const decided = (id: string) =>
    eventually(
      async () =>
        (
          await t.db.query(
            `SELECT status FROM transaction_key k JOIN transaction x ON x.id = k.transaction_id AND x.received_at = k.received_at WHERE k.transaction_id = $1`,
            [id],
          )
        )[0]?.status !== 'received',
      'decided',
    );
  /** Moves a stored transaction (and its key) to `at`: its row changes partition. */
  async function receivedAt(id: string, at: Date): Promise<void> {
    await t.db.query(`UPDATE transaction SET received_at = $2 WHERE id = $1`, [id, at]);
    await t.db.query(`UPDATE transaction_key SET received_at = $2 WHERE transaction_id = $1`, [
      id,
      at,
    ]);
  }

  it('is partitioned by month of received_at with (institution_id, received_at, id); every month kept through two ahead exists', async () => {
    const [{ key }] = await t.db.query(`SELECT pg_get_partkeydef('transaction'::regclass) AS key`);
    expect(key).toBe('RANGE (received_at)');
    const [{ def }] = await t.db.query(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'transaction_pkey'`,
    );
    expect(def).toBe('PRIMARY KEY (institution_id, received_at, id)');
    const names = (await new PartitionsRepository(t.db).list(TABLE)).map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(
        partitionsWanted(TABLE, new Date(), { value: 25, unit: 'months' }).map((p) => p.name),
      ),
    );
    // A run months on creates the months then wanted.
    const later = addMonths(monthOf(new Date()), 3);
    const lifecycle = t.api.app.get(DataLifecycleService, { strict: false });
    const created = await lifecycle.upkeep(later);
    expect(created).toContain(partitionsAhead(TABLE, later)[2].name);
    for (const name of created.filter((n) => n.startsWith('transaction_p')))
      await t.db.query(`DROP TABLE ${name}`);
  });

  it('a reference stored in an earlier month is a duplicate this month; a second row of it is refused', async () => {
    const b = body();
    const first = await post(b).expect(202);
    await decided(first.body.id);
    const lastMonth = addMonths(monthOf(new Date()), -1);
    await receivedAt(first.body.id, new Date(lastMonth.getTime() + 3_600_000));
    const [{ p }] = await t.db.query(
      `SELECT tableoid::regclass::text AS p FROM transaction WHERE id = $1`,
      [first.body.id],
    );
    expect(p).toBe(partitionOf(TABLE, lastMonth).name);
    const again = await post({ ...b, amount: 99 }).expect(200);
    expect(again.body).toMatchObject({ id: first.body.id, status: 'duplicate' });
    await expect(
      t.db.query(
        `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, amount, transacted_at, source)
         VALUES ($1, $2, 'chk_x', 1, now(), 'api')`,
        [w.institution.id, b.transaction_ref],
      ),
    ).rejects.toThrow(/transaction_key_pkey/);
  });

  it('retention drops the oldest month under its money records: reporting and statements read the same, its reference stays a duplicate, a refund of it reverses nothing', async () => {
    const token = `chk_${uniq()}`;
    await enrollBeforePurchase(t.api, w, token);
    const b = body({ cardholder_token: token });
    const res = await post(b).expect(202);
    await decided(res.body.id);
    await t.api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', t.op())
      .send({ as_of: new Date(Date.now() + 365 * DAY_MS).toISOString() })
      .expect(200);
    const [red] = await t.db.query(
      `SELECT id, status, transaction_ref, transacted_at, purchase_amount FROM redemption WHERE transaction_id = $1`,
      [res.body.id],
    );
    expect(red).toMatchObject({ status: 'settled', transaction_ref: b.transaction_ref });

    const get = (path: string) => t.api.http.get(path).set('Authorization', w.auth).expect(200);
    const reporting = async () =>
      (await get('/api/v1/reporting/redemptions?limit=100')).body.data.find(
        (r: { id: string }) => r.id === red.id,
      );
    const day = new Date().toISOString().slice(0, 10);
    const statements = async () =>
      (await get(`/api/v1/statements?granularity=day&from=${day}&to=${day}`)).body.data;
    const movements = async () =>
      t.db.query(
        `SELECT type, amount, transaction_ref FROM statement_movement WHERE redemption_id = $1 ORDER BY booked_at`,
        [red.id],
      );
    const before = {
      reporting: await reporting(),
      statements: await statements(),
      movements: await movements(),
    };
    expect(before.reporting).toBeDefined();

    // The purchase's month: 26 months ago, past the 25 kept; retention drops it whole.
    const old = partitionOf(TABLE, addMonths(monthOf(new Date()), -26));
    await new PartitionsRepository(t.db).create(TABLE, old);
    await receivedAt(res.body.id, new Date(old.from.getTime() + 3_600_000));
    const lifecycle = t.api.app.get(DataLifecycleService, { strict: false });
    const { dropped } = await lifecycle.retain();
    expect(dropped).toContain(old.name);
    expect(
      (await t.db.query(`SELECT 1 FROM transaction WHERE id = $1`, [res.body.id])).length,
    ).toBe(0);

    // Money records and what reads them are unchanged.
    const [after] = await t.db.query(
      `SELECT id, status, transaction_ref, transacted_at, purchase_amount FROM redemption WHERE id = $1`,
      [red.id],
    );
    expect(after).toEqual(red);
    expect(await reporting()).toEqual(before.reporting);
    expect(await statements()).toEqual(before.statements);
    expect(await movements()).toEqual(before.movements);
    // The lookup no longer finds it; its reference is still a duplicate.
    await t.api.http
      .get(`/api/v1/transactions/${encodeURIComponent(b.transaction_ref)}`)
      .set('Authorization', w.auth)
      .expect(404);
    expect((await post(b).expect(200)).body).toMatchObject({
      id: res.body.id,
      status: 'duplicate',
    });

    // A refund of the dropped purchase: simulate finds no original; stored, it reverses nothing.
    const refund = body({
      cardholder_token: token,
      transaction_type: 'refund',
      original_transaction_ref: b.transaction_ref,
    });
    const sim = await t.api.http
      .post('/api/v1/transactions/simulate')
      .set('Authorization', w.auth)
      .send(refund)
      .expect(200);
    expect(sim.body.refund).toMatchObject({ original_found: false, would_reverse: false });
    const rf = await post(refund).expect(202);
    await decided(rf.body.id);
    expect(
      (await t.db.query(`SELECT status FROM redemption WHERE id = $1`, [red.id]))[0].status,
    ).toBe('settled');
    expect(await movements()).toEqual(before.movements);
    expect(await statements()).toEqual(before.statements);
  });
});

describe('partitioning an existing install’s transactions', () => {
  it('the upgrade keeps the old table live; the copy, stopped and resumed while both versions write and update, switches losing and doubling nothing', async () => {
    // The release before this work: no key table, redemptions with a foreign key.
    const { url, old } = await releaseDatabase('TransactionKeys', 'tx_partition_move');
    const [{ id: inst }] = await old.query(
      `INSERT INTO institution (name, plan) VALUES ('Old Bank', 'growth') RETURNING id`,
    );
    /**
     * The previous release's insert (ON CONFLICT on the reference's unique key, which the old
     * table keeps until the switch); `plain`: the insert of a row without its key after it (SQL by
     * hand; the release before the switch writes keys itself, through TransactionStore).
     */
    const oldInsert = (db: DataSource, at: Date, n: number, status = 'unmatched', plain = false) =>
      db.query(
        `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, amount, transacted_at,
                                  received_at, source, status)
         SELECT $1, 'old-' || gen_random_uuid(), 'chk_old', 10, $2, $2, 'api', $4 FROM generate_series(1, $3)
         ${plain ? '' : 'ON CONFLICT (institution_id, transaction_ref) DO NOTHING'}`,
        [inst, at, n, status],
      );
    const now = Date.now();
    for (const [monthsAgo, n] of [
      [20, 100],
      [2, 300],
      [1, 500],
      [0, 600],
    ] as const)
      await oldInsert(old, new Date(now - monthsAgo * 31 * DAY_MS), n);
    const seeded: string[] = (await old.query(`SELECT id FROM transaction ORDER BY id`)).map(
      (r: { id: string }) => r.id,
    );
    expect(seeded).toHaveLength(1500);
    await old.destroy();

    const ds = await new DataSource(dataSourceOptions(url.toString())).initialize();
    try {
      await ds.runMigrations();
      const count = (sql: string) => ds.query(sql).then(([r]) => Number(r.n));
      // The old table is still the live one; its rows have their keys; the copy is empty.
      expect(await count(`SELECT count(*) AS n FROM transaction`)).toBe(1500);
      expect(await count(`SELECT count(*) AS n FROM transaction_key`)).toBe(1500);
      expect(await count(`SELECT count(*) AS n FROM transaction_partitioned`)).toBe(0);

      // The previous release, still running until the deploy ends, writes to the old table.
      await oldInsert(ds, new Date(), 7, 'received');
      expect(await count(`SELECT count(*) AS n FROM transaction_partitioned`)).toBe(7);
      const repo = new PartitionsRepository(ds);
      const store = new TransactionStore(ds);
      // A copy stopped after its first batch (as if killed)...
      await expect(
        new PartitionMover(repo).moveAll(100, () => {
          throw new Error('stopped');
        }),
      ).rejects.toThrow('stopped');
      // 107 less those of the 7 the batch read again (in id order, skipped: already copied).
      expect(
        await count(`SELECT count(*) AS n FROM transaction_partitioned`),
      ).toBeGreaterThanOrEqual(100);
      // ...then resumed while the service inserts (with its keys, and a row without one) and
      // matching updates statuses (the release running the move writes keys itself: the previous
      // one's ON CONFLICT on the reference has no unique key to name once switched).
      let writing = true;
      let written = 0;
      let updated = 0;
      const writer = (async () => {
        while (writing || written === 0) {
          await store.insert(
            Array.from({ length: 20 }, () => ({
              institutionId: inst,
              event: {
                transactionRef: uniq('new-'),
                cardholderToken: 'chk_new',
                institutionId: null,
                instrumentToken: 'ctk_new',
                instrumentType: null,
                merchantIdentifier: null,
                merchantIdentifierType: null,
                merchantId: null,
                mcc: null,
                merchantDescriptor: null,
                network: null,
                amount: '12',
                currency: null,
                transactedAt: new Date().toISOString(),
                kind: 'purchase',
                originalTransactionRef: null,
              } satisfies TransactionEvent,
            })),
            'api',
          );
          await oldInsert(ds, new Date(), 5, 'received', true);
          written += 25;
        }
      })();
      const updater = (async () => {
        while (writing || updated === 0) {
          const rows = await ds.query(
            `UPDATE transaction SET status = 'matched', processed_at = now()
              WHERE id IN (SELECT id FROM transaction WHERE status <> 'matched' ORDER BY id LIMIT 50 FOR UPDATE)
              RETURNING id`,
          );
          updated += rows[0].length ?? 0;
        }
      })();
      const reports = await new PartitionMover(repo).moveAll(200);
      writing = false;
      await writer;
      await updater;

      expect(reports).toEqual([expect.objectContaining({ table: 'transaction', finished: true })]);
      expect(await count(`SELECT count(to_regclass('transaction_partitioned')) AS n`)).toBe(0);
      expect(await count(`SELECT count(to_regclass('transaction_unpartitioned')) AS n`)).toBe(0);
      const [{ key }] = await ds.query(`SELECT pg_get_partkeydef('transaction'::regclass) AS key`);
      expect(key).toBe('RANGE (received_at)');
      expect(await count(`SELECT count(*) AS n FROM transaction`)).toBe(1507 + written);
      expect(await count(`SELECT count(DISTINCT id) AS n FROM transaction`)).toBe(1507 + written);
      expect(await count(`SELECT count(*) AS n FROM transaction_key`)).toBe(1507 + written);
      const [{ n: kept }] = await ds.query(
        `SELECT count(*)::int AS n FROM transaction WHERE id = ANY($1::uuid[])`,
        [seeded],
      );
      expect(kept).toBe(1500);
      // Every update reached the copy: a matched row in the old table is matched here.
      expect(updated).toBeGreaterThan(0);
      expect(
        await count(
          `SELECT count(*) AS n FROM transaction WHERE status = 'matched' AND processed_at IS NULL`,
        ),
      ).toBe(0);
      // The long-ago month got its partition; keys lead to their row's month.
      expect((await repo.list('transaction')).map((p) => p.name)).toContain(
        partitionOf('transaction', new Date(now - 20 * 31 * DAY_MS)).name,
      );
      expect(
        await count(
          `SELECT count(*) AS n FROM transaction_key k JOIN transaction t
               ON t.institution_id = k.institution_id AND t.received_at = k.received_at AND t.id = k.transaction_id`,
        ),
      ).toBe(1507 + written);
      // After the switch a row inserted without its key still gets one (the trigger moved).
      await oldInsert(ds, new Date(), 3, 'unmatched', true);
      expect(await count(`SELECT count(*) AS n FROM transaction_key`)).toBe(1507 + written + 3);
      // The matching backlog is the rows still received, before the switch and after it (its
      // triggers moved too), and the months keep room for matching's in-place writes.
      const backlogDiff = `SELECT count(*) AS n FROM (
          (SELECT received_at, id FROM transaction WHERE status = 'received'
           EXCEPT SELECT received_at, id FROM transaction_backlog)
          UNION ALL
          (SELECT received_at, id FROM transaction_backlog
           EXCEPT SELECT received_at, id FROM transaction WHERE status = 'received')) d`;
      expect(await count(`SELECT count(*) AS n FROM transaction_backlog`)).toBeGreaterThan(0);
      expect(await count(backlogDiff)).toBe(0);
      await oldInsert(ds, new Date(), 4, 'received', true);
      await ds.query(
        `UPDATE transaction SET status = 'unmatched', processed_at = now()
          WHERE id IN (SELECT id FROM transaction WHERE status = 'received' LIMIT 3)`,
      );
      expect(await count(backlogDiff)).toBe(0);
      expect(
        await count(
          `SELECT count(*) AS n FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'transaction'::regclass AND NOT 'fillfactor=50' = ANY(COALESCE(c.reloptions, '{}'))`,
        ),
      ).toBe(0);
      expect(await new PartitionMover(repo).moveAll(200)).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });
});
