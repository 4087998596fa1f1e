import { createHash } from 'crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  AuditLogRepository,
  AuditTrail,
  StatementCloser,
  StatementsRepository,
  WebhookEvents,
  WebhookScheduleRepository,
} from '@app/core';
import { dataSourceOptions, MIGRATIONS } from '@app/db';
import { addDays, DAY_MS, monthEnd } from '@app/domain';
import {
  apiAndWorker,
  createWorld,
  enrollBeforePurchase,
  eventually,
  failAuditAppends,
  TEST_DATABASE_URL,
  uniq,
  World,
} from '@app/testing';
import { StatementCloseTimer } from '../../worker/src/statements/statement-close.timer';

/**
 * Statements tie out: movements booked by every money change (redemption, reversal, settlement,
 * clawback), the identities, closing (by the operator, under a racing redemption), the lines file
 * and its checksum, and the first day after the upgrade.
 */
describe('statements', () => {
  const t = apiAndWorker();
  const today = () => new Date().toISOString().slice(0, 10); // the worlds here are on UTC

  let w: World;
  let other: World;

  const get = (path: string, world: World = w) =>
    t.api.http.get(path).set('Authorization', world.auth);

  const enroll = (world: World, token: string) => enrollBeforePurchase(t.api, world, token);

  /** Posts a transaction and waits until matching has decided it. */
  async function post(world: World, body: Record<string, unknown>): Promise<string> {
    const res = await t.api.http
      .post('/api/v1/transactions')
      .set('Authorization', world.auth)
      .send({
        card_token: `ctk_${uniq()}`,
        merchant_identifier: world.merchants[0].identifiers[0].value,
        transacted_at: new Date().toISOString(),
        ...body,
      });
    expect(res.status).toBe(202);
    await eventually(
      async () =>
        (await t.db.query(`SELECT status FROM transaction WHERE id = $1`, [res.body.id]))[0]
          ?.status !== 'received',
      'matched',
    );
    return res.body.id;
  }

  const purchase = (world: World, token: string, ref: string, amount = 25) =>
    post(world, { cardholder_token: token, transaction_ref: ref, amount });
  const refund = (world: World, token: string, ref: string, amount = 25) =>
    post(world, {
      cardholder_token: token,
      transaction_ref: uniq('rf-'),
      transaction_type: 'refund',
      original_transaction_ref: ref,
      amount,
    });
  const settleAll = () =>
    t.api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', t.op())
      .send({ as_of: new Date(Date.now() + 365 * DAY_MS).toISOString() })
      .expect(200);
  const close = (through: string, institutionId = w.institution.id) =>
    t.api.http
      .post('/admin/api/v1/statements/close')
      .set('Authorization', t.op())
      .send({ through, institution_id: institutionId });

  async function statement(granularity: 'day' | 'month', day: string, world: World = w) {
    const res = await get(
      `/api/v1/statements?granularity=${granularity}&from=${day}&to=${day}`,
      world,
    ).expect(200);
    return res.body.data as Record<string, unknown>[];
  }

  async function allLines(id: string, world: World = w) {
    const lines: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const res: {
        body: { data: Record<string, unknown>[]; pagination: { next_cursor: string | null } };
      } = await get(
        `/api/v1/statements/${id}/lines?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        world,
      ).expect(200);
      lines.push(...res.body.data);
      cursor = res.body.pagination.next_cursor;
    } while (cursor);
    return lines;
  }

  const csv = async (id: string, world: World = w) => {
    const res = await get(`/api/v1/statements/${id}/lines`, world)
      .set('Accept', 'text/csv')
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    return res.body as Buffer;
  };

  /** Payout in major units of the world's redemptions, by status now. */
  async function payouts(world: World) {
    const rows: { id: string; payout: string; transaction_id: string }[] = await t.db.query(
      `SELECT id, institution_payout_amount AS payout, transaction_id FROM redemption WHERE institution_id = $1`,
      [world.institution.id],
    );
    return rows.map((r) => ({ ...r, payout: Number(r.payout) / 100 }));
  }

  beforeAll(async () => {
    const offer = {
      min_spend: 20,
      cashback_amount: 5,
      merchant_fee_amount: 1,
      max_redemptions_per_cardholder: 100,
    };
    const options = {
      program: { time_zone: 'UTC' },
      rateLimits: { reporting: 10_000 },
      merchants: [{ name: '=Green Grocer' }],
      offers: [offer],
    };
    w = await createWorld(t.api, options);
    other = await createWorld(t.api, options);
  });

  it('a day of purchases, a refund, a settlement run and a clawback ties out; lines, CSV and month agree', async () => {
    const token = `chk_${uniq()}`;
    await enroll(w, token);
    const refs = ['p1', 'p2', 'p3'].map((p) => uniq(`${p}-`));
    for (const ref of refs) await purchase(w, token, ref);
    const [r1, r2, r3] = await payouts(w);
    const p = r1.payout;
    expect([r2.payout, r3.payout]).toEqual([p, p]);
    await refund(w, token, refs[0]); // pending → reversed
    await settleAll(); // p2, p3 → settled
    await refund(w, token, refs[1]); // settled → reversed: a clawback
    const [{ clawback }] = await t.db.query(
      `SELECT clawback_amount::int AS clawback FROM settlement_entry e JOIN redemption r ON r.id = e.redemption_id
        JOIN transaction x ON x.id = r.transaction_id WHERE x.transaction_ref = $1 AND x.institution_id = $2`,
      [refs[1], w.institution.id],
    );

    const [day] = await statement('day', today());
    expect(day).toMatchObject({
      granularity: 'day',
      period_start: today(),
      period_end: today(),
      time_zone: 'UTC',
      currency: 'USD',
      status: 'open',
      closed_at: null,
      checksum: null,
      pending_opening: 0,
      earned: 3 * p,
      reversed: p,
      settled: 2 * p,
      pending_closing: 0,
      clawed_back: clawback / 100,
      net_payout: 2 * p - clawback / 100,
      movement_count: 7,
    });

    // The month is exactly its days (this institution has only today).
    const [month] = await statement('month', today());
    const figures = [
      'pending_opening',
      'earned',
      'reversed',
      'settled',
      'pending_closing',
      'clawed_back',
      'net_payout',
      'movement_count',
      'currency',
      'time_zone',
    ];
    const dayFigures = Object.fromEntries(figures.map((k) => [k, day[k]]));
    expect(month).toMatchObject({ ...dayFigures, granularity: 'month', status: 'open' });
    expect(month.period_end).toBe(monthEnd(today()));

    // Lines, in JSON pages and as the CSV file, say the same.
    const lines = await allLines(day.id as string);
    expect(lines.map((l) => l.type).sort()).toEqual(
      ['clawback', 'earned', 'earned', 'earned', 'reversed', 'settled', 'settled'].sort(),
    );
    expect(lines.every((l) => l.source === 'matching' && l.merchant_name === '=Green Grocer')).toBe(
      true,
    );
    const booked = lines.map((l) => l.booked_at as string);
    expect([...booked].sort()).toEqual(booked);
    const file = await csv(day.id as string);
    const rows = file.toString('utf8').split('\r\n');
    expect(rows.pop()).toBe(''); // CRLF after the last row too
    expect(rows[0]).toBe(
      'movement_id,type,booked_at,redemption_id,offer_id,merchant_name,transaction_ref,amount,currency,source',
    );
    expect(rows.slice(1)).toEqual(
      lines.map((l) =>
        [
          l.movement_id,
          l.type,
          l.booked_at,
          l.redemption_id,
          l.offer_id,
          "'=Green Grocer",
          l.transaction_ref,
          (l.amount as number).toFixed(2),
          'USD',
          'matching',
        ].join(','),
      ),
    );

    // Closing: the checksum is the file's, and a later movement lands in the next open day.
    const expected = 1 + (monthEnd(today()) === today() ? 1 : 0);
    expect((await close(today()).expect(200)).body).toEqual({ closed: expected });
    expect((await close(today()).expect(200)).body).toEqual({ closed: 0 });
    const closed = (await get(`/api/v1/statements/${day.id}`).expect(200)).body;
    expect(closed).toMatchObject({ ...dayFigures, status: 'closed', id: day.id });
    expect(closed.checksum).toBe(createHash('sha256').update(file).digest('hex'));
    expect(closed.offers).toEqual([
      expect.objectContaining({ offer_id: w.offers[0].id, movement_count: 7, earned: 3 * p }),
    ]);

    await purchase(w, token, uniq('p4-'));
    expect((await csv(day.id as string)).equals(file)).toBe(true);
    const [next] = await statement('day', addDays(today(), 1));
    expect(next).toMatchObject({
      status: 'open',
      pending_opening: 0,
      earned: p,
      pending_closing: p,
      movement_count: 1,
    });
    // Another institution never sees it.
    await get(`/api/v1/statements/${day.id}`, other).expect(404);
    await get(`/api/v1/statements/${day.id}/lines`, other).expect(404);
  });

  it('a redemption racing the close of its day is in exactly one statement', async () => {
    const token = `chk_${uniq()}`;
    await enroll(other, token);
    const ref = uniq('race-');
    await purchase(other, token, ref);
    // A money change in flight holds the book: the close waits for it, and it is in the closed day.
    const c = new Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    await c.query('BEGIN');
    await c.query(
      `UPDATE settlement_entry SET status = 'settled', settled_at = now() WHERE institution_id = $1`,
      [other.institution.id],
    );
    let done = false;
    const closing = close(today(), other.institution.id).then((r) => {
      done = true;
      return r;
    });
    // The close is waiting for this transaction's lock (not merely slow to start).
    const [{ pid }] = (await c.query('SELECT pg_backend_pid() AS pid')).rows;
    await eventually(
      async () =>
        (
          await c.query(
            `SELECT 1 FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))`,
            [pid],
          )
        ).rowCount || null,
      'the close waiting for the money change',
    );
    expect(done).toBe(false);
    await c.query('COMMIT');
    await c.end();
    expect((await closing).status).toBe(200);
    const [day] = await statement('day', today(), other);
    expect(day).toMatchObject({ status: 'closed', earned: day.settled, movement_count: 2 });
  });

  it('purchases racing the close of their day land in the closed day or the next, none twice', async () => {
    const race = await createWorld(t.api, {
      program: { time_zone: 'UTC' },
      rateLimits: { reporting: 10_000 },
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, max_redemptions_per_cardholder: 100 }],
    });
    const token = `chk_${uniq()}`;
    await enroll(race, token);
    // The first movement opens the institution's book for USD (docs/statements.md).
    await purchase(race, token, uniq('first-'));
    const racing = Array.from({ length: 10 }, () => purchase(race, token, uniq('race-')));
    await close(today(), race.institution.id).expect(200);
    await Promise.all(racing);
    const [closedDay] = (await statement('day', today(), race)).filter(
      (s) => s.status === 'closed',
    );
    const [nextDay] = await statement('day', addDays(today(), 1), race);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM statement_movement WHERE institution_id = $1`,
      [race.institution.id],
    );
    expect(n).toBe(11);
    expect(closedDay).toBeDefined();
    expect((closedDay.movement_count as number) + (nextDay.movement_count as number)).toBe(11);
    expect(nextDay.pending_opening).toBe(closedDay.pending_closing);
    expect(
      createHash('sha256')
        .update(await csv(closedDay.id as string, race))
        .digest('hex'),
    ).toBe(closedDay.checksum);
  });

  it('lines page in booked_at order to the microsecond: two movements in one millisecond are both listed, once', async () => {
    // Ids in the opposite order of their instants: a page order that ties on the millisecond and
    // falls back to the id would disagree with the cursor (to the microsecond) and skip a line.
    const x = await createWorld(t.api, { program: { time_zone: 'UTC' } });
    const day = '2020-01-15';
    await t.db.query(
      `INSERT INTO statement_book (institution_id, currency, open_day, time_zone, pending_opening, month_pending_opening)
       VALUES ($1, 'USD', '2020-01-01', 'UTC', 0, 0)`,
      [x.institution.id],
    );
    const later = '00000000-0000-4000-8000-000000000000';
    const earlier = 'ffffffff-ffff-4fff-bfff-ffffffffffff';
    for (const [id, at] of [
      [earlier, `${day} 10:00:00.123400+00`],
      [later, `${day} 10:00:00.123500+00`],
    ])
      await t.db.query(
        `INSERT INTO statement_movement (id, institution_id, currency, period_day, type, booked_at, amount,
           settlement_entry_id, redemption_id, offer_id, merchant_id, merchant_name, offer_title, transaction_ref,
           merchant_funded_amount, service_revenue_amount, institution_payout_amount, source)
         VALUES ($1, $2, 'USD', $3, 'earned', $4, 100, gen_random_uuid(), gen_random_uuid(), $5, $6, 'Shop', 'Offer',
                 'ref', 125, 25, 100, 'matching')`,
        [id, x.institution.id, day, at, w.offers[0].id, w.merchants[0].id],
      );
    const [st] = await statement('day', day, x);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: {
        body: { data: { movement_id: string }[]; pagination: { next_cursor: string | null } };
      } = await get(
        `/api/v1/statements/${st.id as string}/lines?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        x,
      ).expect(200);
      seen.push(...res.body.data.map((l) => l.movement_id));
      cursor = res.body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual([earlier, later]);
  });

  it("a close and its audit entries commit together, book by book; the scheduled close's actor is system", async () => {
    const world = await createWorld(t.api, {
      program: { time_zone: 'UTC' },
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, max_redemptions_per_cardholder: 100 }],
    });
    const token = `chk_${uniq()}`;
    await enroll(world, token);
    await purchase(world, token, uniq('audited-'));
    const book = async () =>
      (
        await t.db.query(
          `SELECT open_day::text AS open_day FROM statement_book WHERE institution_id = $1`,
          [world.institution.id],
        )
      )[0].open_day as string;
    const entries = () =>
      t.db.query(
        `SELECT actor_type, before, after FROM audit_log
          WHERE action = 'statement.close' AND institution_id = $1 ORDER BY seq`,
        [world.institution.id],
      );
    expect(await book()).toBe(today());

    const restore = await failAuditAppends(t.db, 'statement.close');
    try {
      expect((await close(today(), world.institution.id)).status).toBe(500);
    } finally {
      await restore();
    }
    expect(await book()).toBe(today());
    expect((await statement('day', today(), world))[0]).toMatchObject({ status: 'open' });
    expect(await entries()).toEqual([]);

    const closed = await close(today(), world.institution.id).expect(200);
    expect(await book()).toBe(addDays(today(), 1));
    expect(await entries()).toEqual([
      {
        actor_type: 'break_glass',
        before: { currency: 'USD', open_day: today() },
        after: {
          currency: 'USD',
          through: today(),
          closed: closed.body.closed,
          open_day: addDays(today(), 1),
        },
      },
    ]);

    // The worker's scheduled close of an ended day is the system's.
    await t.db.query(`UPDATE statement_book SET open_day = $2 WHERE institution_id = $1`, [
      world.institution.id,
      addDays(today(), -2),
    ]);
    await t.worker.get(StatementCloseTimer).pass();
    expect(await book()).toBe(today());
    expect((await entries())[1]).toMatchObject({
      actor_type: 'system',
      before: { open_day: addDays(today(), -2) },
      after: { through: addDays(today(), -1), closed: 0, open_day: today() },
    });
  });

  it('refuses a bad query, a close after the current day, and an unknown statement', async () => {
    for (const q of [
      'granularity=week',
      'granularity=day&from=2026-02-30',
      'granularity=day&from=2026-11-02&to=2026-11-01',
      'from=2026-11-01',
      'granularity=day&currency=usd',
    ])
      expect((await get(`/api/v1/statements?${q}`)).status).toBe(400);
    expect((await close(addDays(today(), 2))).status).toBe(400);
    await get(`/api/v1/statements/3b1f7c52-9a0e-5d1b-8c4f-2e6a9d7b1c30`).expect(404);
  });

  it('a merchant is invoiced what it funded, less every reversal', async () => {
    const res = await t.api.http
      .get(`/admin/api/v1/merchants/${w.merchants[0].id}/statements?granularity=month`)
      .set('Authorization', t.op())
      .expect(200);
    const [m] = res.body.data;
    // Four redemptions earned (p1–p4), two reversed (p1 pending, p2 clawed back).
    expect(m).toMatchObject({
      currency: 'USD',
      merchant_funded_earned: 24,
      merchant_funded_reversed: 12,
    });
    expect(m.net_invoiced).toBe(12);
    expect(m.service_revenue + m.institution_payout).toBeCloseTo(m.net_invoiced, 10);
    await t.api.http
      .get(`/admin/api/v1/merchants/${uniq('x')}/statements?granularity=month`)
      .set('Authorization', t.op())
      .expect(400);
  });
});

describe('statements after the upgrade', () => {
  it('the first day opens with the pending balance at the upgrade and ties out', async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${url.pathname.slice(1)}_upgrade`;
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const name = url.pathname.slice(1);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const before = MIGRATIONS.findIndex((m) => m.name.startsWith('Statements'));
    const old = await new DataSource(
      dataSourceOptions(url.toString(), { migrations: MIGRATIONS.slice(0, before) }),
    ).initialize();
    await old.runMigrations();
    // The previous release's data: two pending entries (payout 4.50 and 3.00) and a settled one.
    await old.query(`
      WITH i AS (INSERT INTO institution (name, plan) VALUES ('Old Bank', 'growth') RETURNING id),
           p AS (INSERT INTO program (institution_id) SELECT id FROM i),
           m AS (INSERT INTO merchant (name, category) VALUES ('Shop', 'grocery') RETURNING id),
           o AS (INSERT INTO offer (merchant_id, status, translations, cashback_amount, currency, starts_at, expires_at)
                 SELECT id, 'active', '{"en": {"title": "t", "description": "d"}}', 500, 'USD', now() - interval '1 day', now() + interval '1 day' FROM m RETURNING id, merchant_id),
           co AS (INSERT INTO cardholder_offer (offer_id, institution_id, cardholder_token)
                  SELECT o.id, i.id, 'chk_old' FROM o, i RETURNING id, offer_id, institution_id),
           tx AS (INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, amount, transacted_at, source)
                  SELECT i.id, 'old-' || n, 'chk_old', 25, now(), 'api' FROM i, generate_series(1, 3) n RETURNING id, transaction_ref),
           r AS (INSERT INTO redemption (institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency,
                                         purchase_amount, cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount)
                 SELECT co.institution_id, tx.id, co.id, co.offer_id, 'chk_old', 'USD', 2500, 500, 600,
                        600 - CASE tx.transaction_ref WHEN 'old-1' THEN 450 WHEN 'old-2' THEN 300 ELSE 200 END,
                        CASE tx.transaction_ref WHEN 'old-1' THEN 450 WHEN 'old-2' THEN 300 ELSE 200 END
                   FROM co, tx RETURNING id, institution_id, offer_id, institution_payout_amount, service_revenue_amount, merchant_funded_amount)
      INSERT INTO settlement_entry (institution_id, redemption_id, offer_id, merchant_id, currency, merchant_funded_amount,
                                    service_revenue_amount, institution_payout_amount, status)
      SELECT r.institution_id, r.id, r.offer_id, o.merchant_id, 'USD', r.merchant_funded_amount, r.service_revenue_amount,
             r.institution_payout_amount, CASE WHEN r.institution_payout_amount = 200 THEN 'settled' ELSE 'pending' END
        FROM r, o`);
    await old.destroy();

    const ds = await new DataSource(dataSourceOptions(url.toString())).initialize();
    try {
      await ds.runMigrations();
      const [book] = await ds.query(`SELECT pending_opening::int AS p FROM statement_book`);
      expect(book.p).toBe(750);
      // One pending entry settles after the upgrade; the day closes and ties out.
      await ds.query(
        `UPDATE settlement_entry SET status = 'settled' WHERE institution_payout_amount = 450`,
      );
      const repo = new StatementsRepository(ds);
      const today = new Date().toISOString().slice(0, 10);
      const webhooks = new WebhookEvents(new WebhookScheduleRepository(ds, 60_000));
      const audit = new AuditTrail(ds, new AuditLogRepository(ds));
      expect(await new StatementCloser(ds, repo, webhooks, audit).close(today)).toEqual({
        closed: 1 + (monthEnd(today) === today ? 1 : 0),
        books: 1,
      });
      const [s] = await ds.query(
        `SELECT pending_opening::int AS opening, settled::int AS settled, pending_closing::int AS closing, movement_count
           FROM statement WHERE granularity = 'day'`,
      );
      expect(s).toEqual({ opening: 750, settled: 450, closing: 300, movement_count: 1 });
      const [{ pending }] = await ds.query(
        `SELECT sum(institution_payout_amount)::int AS pending FROM settlement_entry WHERE status = 'pending'`,
      );
      expect(pending).toBe(s.closing);
    } finally {
      await ds.destroy();
    }
  });
});
