import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  createWorld,
  enrollBeforePurchase,
  eventually,
  startApi,
  startWorker,
  TestApi,
  uniq,
  World,
} from '@app/testing';
import { EngagementRecorder } from '../src/offers/engagement-recorder.service';

/**
 * Midnight UTC of the 10th, `n` months before this one: a past moment that engagement retention
 * keeps (its month's partition exists), whatever the day the suite runs.
 */
function tenthOfMonthsAgo(n: number): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 10);
}

/**
 * Reporting reads data made the way institutions make it: enrollments and purchases through the
 * public API, redemptions by the worker's matching.
 */
describe('reporting', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let db: DataSource;
  let world: World;
  let other: World;
  const cardholder = `chk_${uniq()}`;

  const get = (path: string, w: World = world) => api.http.get(path).set('Authorization', w.auth);

  /** Enrolls, then posts `count` qualifying purchases in one batch; waits until all are matched. */
  async function purchases(w: World, token: string, count: number, amount = 25): Promise<string[]> {
    await enrollBeforePurchase(api, w, token, { existing: true });
    const refs = Array.from({ length: count }, () => uniq('ref-'));
    const transactions = refs.map((transaction_ref) => ({
      cardholder_token: token,
      card_token: `ctk_${uniq()}`,
      merchant_identifier: w.merchants[0].identifiers[0].value,
      amount,
      transaction_ref,
      transacted_at: new Date().toISOString(),
    }));
    const res = await api.http
      .post('/api/v1/transactions/batch')
      .set('Authorization', w.auth)
      .send({ transactions })
      .expect(202);
    expect(res.body.accepted).toBe(count);
    await eventually(
      async () => {
        const [{ n }] = await db.query(
          `SELECT count(*)::int AS n FROM redemption r JOIN transaction t ON t.id = r.transaction_id
            WHERE t.institution_id = $1 AND t.transaction_ref = ANY($2)`,
          [w.institution.id, refs],
        );
        return n === count;
      },
      `${count} redemptions`,
      30_000,
    );
    return refs;
  }

  beforeAll(async () => {
    api = await startApi();
    worker = await startWorker();
    db = api.app.get(DataSource);
    const offer = {
      min_spend: 20,
      cashback_amount: 5,
      merchant_fee_amount: 1,
      max_redemptions_per_cardholder: 100,
    };
    world = await createWorld(api, {
      program: { supported_locales: ['es', 'en'] },
      rateLimits: { reporting: 10_000 }, // this file walks many pages; the 60/min default is tested below
      merchants: [{ name: 'Green Grocer' }],
      offers: [
        {
          ...offer,
          translations: {
            en: { title: '$5 back', description: 'd' },
            es: { title: '5 $ de reembolso', description: 'd' },
          },
        },
      ],
    });
    other = await createWorld(api, { merchants: [{}], offers: [offer] });
    await purchases(world, cardholder, 25);
    await purchases(other, `chk_${uniq()}`, 2);
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
  });

  /** The transaction_ref of a redemption's purchase. */
  const refOf = async (redemptionId: string) =>
    (
      await db.query(
        `SELECT t.transaction_ref FROM redemption r JOIN transaction t ON t.id = r.transaction_id WHERE r.id = $1`,
        [redemptionId],
      )
    )[0].transaction_ref as string;

  describe('GET /api/v1/reporting/redemptions', () => {
    it('items carry the published fields: masked token, offer title in the first locale, amounts in major units', async () => {
      const res = await get('/api/v1/reporting/redemptions?limit=1').expect(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0]).toEqual({
        id: expect.any(String),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        status: 'pending',
        currency: 'USD',
        merchant_funded_amount: 6,
        institution_payout_amount: 5.5, // fee 1 × share 0.5 kept by the service
        cashback_amount: 5, // what the cardholder got: less than the payout
        offer: { id: world.offers[0].id, title: '5 $ de reembolso', merchant_name: 'Green Grocer' },
        cardholder_token_masked: `${cardholder.slice(0, 4)}****${cardholder.slice(-4)}`,
        // Additive: what reconciles the row alone, stored on the redemption.
        transaction_ref: await refOf(res.body.data[0].id),
        purchase_amount: 25,
        goal_round: null,
      });
      expect(JSON.stringify(res.body)).not.toContain(cardholder);
      expect(res.body.pagination).toEqual({ limit: 1, next_cursor: expect.any(String) });
    });

    it('defaults to 100 per page; newest first; another institution sees none of these rows', async () => {
      const all = await get('/api/v1/reporting/redemptions').expect(200);
      expect(all.body.pagination).toEqual({ limit: 100, next_cursor: null });
      expect(all.body.data).toHaveLength(25);
      const keys = all.body.data.map(
        (r: { created_at: string; id: string }) => `${r.created_at}|${r.id}`,
      );
      expect([...keys].sort().reverse()).toEqual(keys);
      const theirs = await get('/api/v1/reporting/redemptions', other).expect(200);
      expect(theirs.body.data).toHaveLength(2);
      const mine = new Set(all.body.data.map((r: { id: string }) => r.id));
      expect(theirs.body.data.some((r: { id: string }) => mine.has(r.id))).toBe(false);
    });

    it('walking pages of 1 returns every row exactly once', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: {
          body: { data: { id: string }[]; pagination: { next_cursor: string | null } };
        } = await get(
          `/api/v1/reporting/redemptions?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        ).expect(200);
        seen.push(...res.body.data.map((r: { id: string }) => r.id));
        cursor = res.body.pagination.next_cursor;
      } while (cursor);
      expect(seen).toHaveLength(25);
      expect(new Set(seen).size).toBe(25);
    });

    it('pages stay exact while new rows are inserted during the walk', async () => {
      const before = (await get('/api/v1/reporting/redemptions').expect(200)).body.data.map(
        (r: { id: string }) => r.id,
      );
      const seen: string[] = [];
      let cursor: string | null = null;
      let page = 0;
      do {
        const res: {
          body: { data: { id: string }[]; pagination: { next_cursor: string | null } };
        } = await get(
          `/api/v1/reporting/redemptions?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        ).expect(200);
        seen.push(...res.body.data.map((r: { id: string }) => r.id));
        cursor = res.body.pagination.next_cursor;
        if (page++ === 1) await purchases(world, `chk_${uniq()}`, 3); // newer rows land before the cursor
      } while (cursor);
      expect(seen).toEqual(before);
    });

    it('from is inclusive and to exclusive', async () => {
      const rows = (await get('/api/v1/reporting/redemptions').expect(200)).body.data as {
        id: string;
        created_at: string;
      }[];
      const oldest = rows[rows.length - 1];
      const [{ t }] = await db.query(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t FROM redemption WHERE id = $1`,
        [oldest.id],
      );
      const sameTime = rows.filter((r) => r.created_at === oldest.created_at).length;
      const from = await get(`/api/v1/reporting/redemptions?from=${t}`).expect(200);
      expect(from.body.data.map((r: { id: string }) => r.id)).toContain(oldest.id);
      const to = await get(`/api/v1/reporting/redemptions?to=${t}`).expect(200);
      expect(to.body.data.map((r: { id: string }) => r.id)).not.toContain(oldest.id);
      expect(from.body.data.length + to.body.data.length).toBeGreaterThanOrEqual(rows.length);
      expect(sameTime).toBeGreaterThanOrEqual(1);
      const empty = await get(
        `/api/v1/reporting/redemptions?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z`,
      ).expect(200);
      expect(empty.body).toEqual({ data: [], pagination: { limit: 100, next_cursor: null } });
    });

    it.each([
      'limit=0',
      'limit=1001',
      'limit=abc',
      'limit=1.5',
      'from=yesterday',
      'to=2026-13-01T00:00:00Z',
      'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      'extra=1',
    ])('400 validation_failed for %s', async (query) => {
      const res = await get(`/api/v1/reporting/redemptions?${query}`).expect(400);
      expect(res.body.error).toBe('validation_failed');
    });

    it('accepts the limit bounds 1 and 1000', async () => {
      await get('/api/v1/reporting/redemptions?limit=1').expect(200);
      expect(
        (await get('/api/v1/reporting/redemptions?limit=1000').expect(200)).body.pagination.limit,
      ).toBe(1000);
    });

    it('refuses tampered, foreign and other-list cursors', async () => {
      const c = (await get('/api/v1/reporting/redemptions?limit=1').expect(200)).body.pagination
        .next_cursor as string;
      const [body, tag] = c.split('.');
      const altered = Buffer.from(
        Buffer.from(body, 'base64url')
          .toString()
          .replace(/"id":"./, '"id":"0'),
      ).toString('base64url');
      for (const bad of [`${altered}.${tag}`, `${body}.${tag.slice(1)}x`, 'garbage', `${c}.x`]) {
        const res = await get(
          `/api/v1/reporting/redemptions?cursor=${encodeURIComponent(bad)}`,
        ).expect(400);
        expect(res.body).toMatchObject({
          error: 'validation_failed',
          details: [{ field: 'cursor', message: expect.any(String) }],
        });
      }
      await get(`/api/v1/reporting/redemptions?cursor=${encodeURIComponent(c)}`, other).expect(400);
      await get(`/api/v1/reporting/settlements?cursor=${encodeURIComponent(c)}`).expect(400);
    });
  });

  describe('GET /api/v1/reporting/settlements', () => {
    it('lists entries with the ledger fields; status filter; settled after a run', async () => {
      const res = await get('/api/v1/reporting/settlements?limit=2').expect(200);
      expect(res.body.data[0]).toEqual({
        id: expect.any(String),
        redemption_id: expect.any(String),
        offer_id: world.offers[0].id,
        merchant_id: world.merchants[0].id,
        currency: 'USD',
        merchant_funded_amount: 6,
        service_revenue_amount: 0.5,
        institution_payout_amount: 5.5,
        status: 'pending',
        created_at: expect.any(String),
        settled_at: null,
        reversed_at: null,
        transaction_ref: await refOf(res.body.data[0].redemption_id),
        purchase_amount: 25,
        goal_round: null,
      });
      expect(
        (await get('/api/v1/reporting/settlements?status=settled').expect(200)).body.data,
      ).toEqual([]);

      // Settle everything whose hold (30 days) has passed by a date far ahead.
      const run = await api.http
        .post('/admin/api/v1/settlements/run')
        .set('Authorization', `Bearer ${api.operatorToken}`)
        .send({ as_of: new Date(Date.now() + 40 * 86_400_000).toISOString() })
        .expect(200);
      expect(run.body.settled).toBeGreaterThanOrEqual(25);
      const settled = await get('/api/v1/reporting/settlements?status=settled&limit=1000').expect(
        200,
      );
      expect(settled.body.data.length).toBeGreaterThanOrEqual(25);
      expect(
        settled.body.data.every(
          (e: { status: string; settled_at: string | null }) =>
            e.status === 'settled' && e.settled_at,
        ),
      ).toBe(true);
      expect(
        (await get('/api/v1/reporting/settlements?status=pending').expect(200)).body.data,
      ).toEqual([]);
      const redemptions = await get('/api/v1/reporting/redemptions?limit=1').expect(200);
      expect(redemptions.body.data[0].status).toBe('settled');
    });

    it('400 for an unknown status; a cursor of one status filter is refused by another', async () => {
      expect((await get('/api/v1/reporting/settlements?status=paid').expect(400)).body.error).toBe(
        'validation_failed',
      );
      const c = (await get('/api/v1/reporting/settlements?status=settled&limit=1').expect(200)).body
        .pagination.next_cursor;
      await get(
        `/api/v1/reporting/settlements?status=settled&cursor=${encodeURIComponent(c)}`,
      ).expect(200);
      await get(
        `/api/v1/reporting/settlements?status=pending&cursor=${encodeURIComponent(c)}`,
      ).expect(400);
    });
  });

  describe('GET /api/v1/reporting/funnel', () => {
    it('counts a scripted sequence exactly', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [{ max_redemptions_per_cardholder: 5 }, { max_redemptions_per_cardholder: 5 }],
      });
      const [a, b] = [`chk_${uniq()}`, `chk_${uniq()}`];
      const start = new Date(Date.now() - 1000).toISOString();
      const feed = (t: string) =>
        api.http
          .get(`/api/v1/offers?cardholder_token=${t}`)
          .set('Authorization', w.auth)
          .expect(200);
      const shown = [
        (await feed(a)).body.offers.length,
        (await feed(a)).body.offers.length,
        (await feed(b)).body.offers.length,
      ];
      expect(shown).toEqual([2, 2, 2]);
      await api.http
        .post(`/api/v1/offers/${w.offers[0].id}/add`)
        .set('Authorization', w.auth)
        .send({ cardholder_token: a })
        .expect(201);
      await api.http
        .post(`/api/v1/offers/${w.offers[0].id}/add`)
        .set('Authorization', w.auth)
        .send({ cardholder_token: a })
        .expect(200); // already_added: not counted
      await api.http
        .post(`/api/v1/offers/${w.offers[1].id}/add`)
        .set('Authorization', w.auth)
        .send({ cardholder_token: b })
        .expect(201);
      await purchases(w, a, 2); // enrolls a again (already_added) and makes two redemptions
      await api.app.get(EngagementRecorder).flush();

      const res = await api.http
        .get(`/api/v1/reporting/funnel?from=${start}`)
        .set('Authorization', w.auth)
        .expect(200);
      expect(res.body).toEqual({
        window: { from: start, to: expect.any(String) },
        data: {
          widget_views: 3,
          unique_cardholders: 2,
          offer_impressions: 6,
          offer_add_successes: 2,
          redemptions: 2,
        },
      });
      // The window bounds count: nothing before `start`.
      const before = await api.http
        .get(`/api/v1/reporting/funnel?to=${start}`)
        .set('Authorization', w.auth)
        .expect(200);
      expect(before.body.data).toEqual({
        widget_views: 0,
        unique_cardholders: 0,
        offer_impressions: 0,
        offer_add_successes: 0,
        redemptions: 0,
      });
    });

    it('roll-ups and raw edges add up to the exact counts over a window of several days', async () => {
      const w = await createWorld(api);
      // Events at known times (written as the recorder writes them: one multi-row INSERT).
      const base = tenthOfMonthsAgo(1); // within engagement retention, whatever today is
      const events: { kind: string; token: string; at: number }[] = [];
      for (let i = 0; i < 200; i++) {
        const at = base + i * 29 * 60_000; // every 29 minutes, ~4 days
        events.push({ kind: 'widget_view', token: `chk_${i % 7}`, at });
        events.push({ kind: 'impression', token: `chk_${i % 7}`, at });
        if (i % 5 === 0) events.push({ kind: 'add_success', token: `chk_${i % 7}`, at: at + 1 });
      }
      await db.query(
        `INSERT INTO engagement_event (institution_id, kind, cardholder_token, occurred_at)
         SELECT $1, k, t, to_timestamp(a / 1000.0) FROM unnest($2::text[], $3::text[], $4::float8[]) AS x(k, t, a)`,
        [
          w.institution.id,
          events.map((e) => e.kind),
          events.map((e) => e.token),
          events.map((e) => e.at),
        ],
      );
      const from = base + 5 * 3_600_000 + 17 * 60_000; // mid-hour, mid-day
      const to = base + 3 * 86_400_000 + 7 * 3_600_000 + 3 * 60_000;
      const inside = events.filter((e) => e.at >= from && e.at < to);
      const views = inside.filter((e) => e.kind === 'widget_view');
      const res = await api.http
        .get(
          `/api/v1/reporting/funnel?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`,
        )
        .set('Authorization', w.auth)
        .expect(200);
      expect(res.body.data).toEqual({
        widget_views: views.length,
        unique_cardholders: new Set(views.map((e) => e.token)).size,
        offer_impressions: inside.filter((e) => e.kind === 'impression').length,
        offer_add_successes: inside.filter((e) => e.kind === 'add_success').length,
        redemptions: 0,
      });
      expect(views.length).toBeGreaterThan(100);
      // One cardholder seen only in a partial edge day still counts once.
      const edgeOnly = await api.http
        .get(
          `/api/v1/reporting/funnel?from=${new Date(from).toISOString()}&to=${new Date(from + 40 * 60_000).toISOString()}`,
        )
        .set('Authorization', w.auth)
        .expect(200);
      const edgeViews = events.filter(
        (e) => e.kind === 'widget_view' && e.at >= from && e.at < from + 40 * 60_000,
      );
      expect(edgeOnly.body.data.widget_views).toBe(edgeViews.length);
      expect(edgeOnly.body.data.unique_cardholders).toBe(
        new Set(edgeViews.map((e) => e.token)).size,
      );
    });

    it('distinct cardholders stay exact across bitmap chunks, concurrent writers and every window shape', async () => {
      const w = await createWorld(api);
      const base = tenthOfMonthsAgo(2);
      // 6,000 cardholders (two bitmap chunks of 4,096), views over three days; four writers at
      // once with overlapping cardholders, so first sightings race for their numbers.
      const writers = Array.from({ length: 4 }, (_, k) =>
        Array.from({ length: 3_000 }, (_, i) => {
          const n = (i * 7 + k * 1_500) % 6_000;
          return { token: `chk_${n}`, at: base + ((n * 13 + k * 997 + i * 61) % (3 * 86_400_000)) };
        }),
      );
      await Promise.all(
        writers.map((views) =>
          db.query(
            `INSERT INTO engagement_event (institution_id, kind, cardholder_token, occurred_at)
             SELECT $1, 'widget_view', t, to_timestamp(a / 1000.0) FROM unnest($2::text[], $3::float8[]) AS x(t, a)`,
            [w.institution.id, views.map((v) => v.token), views.map((v) => v.at)],
          ),
        ),
      );
      const all = writers.flat();
      const hour = 3_600_000;
      const windows: [number, number][] = [
        [base, base + 3 * 86_400_000], // whole days only
        [base + 5 * hour + 17 * 60_000, base + 2 * 86_400_000 + 7 * hour + 3 * 60_000], // days, hours and raw edges
        [base + 86_400_000 + 2 * hour + 5 * 60_000, base + 86_400_000 + 9 * hour + 1], // hours within one day
        [base + 30 * 60_000, base + 50 * 60_000], // inside one hour
      ];
      for (const [from, to] of windows) {
        const inside = all.filter((v) => v.at >= from && v.at < to);
        const res = await api.http
          .get(
            `/api/v1/reporting/funnel?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`,
          )
          .set('Authorization', w.auth)
          .expect(200);
        expect({
          from,
          views: res.body.data.widget_views,
          unique: res.body.data.unique_cardholders,
        }).toEqual({
          from,
          views: inside.length,
          unique: new Set(inside.map((v) => v.token)).size,
        });
      }
      expect(new Set(all.map((v) => v.token)).size).toBe(6_000);
    });

    it('defaults to the last 30 days; from after to is 400', async () => {
      const res = await get('/api/v1/reporting/funnel').expect(200);
      const days = (Date.parse(res.body.window.to) - Date.parse(res.body.window.from)) / 86_400_000;
      expect(days).toBeCloseTo(30, 5);
      expect(Math.abs(Date.parse(res.body.window.to) - Date.now())).toBeLessThan(10_000);
      expect(res.body.data.redemptions).toBeGreaterThanOrEqual(25);
      await get(
        '/api/v1/reporting/funnel?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      ).expect(400);
    });
  });

  it('reporting is limited to 60 calls a minute per key: the 61st is 429 with Retry-After', async () => {
    const w = await createWorld(api);
    for (let i = 0; i < 60; i++) await get('/api/v1/reporting/funnel', w).expect(200);
    const res = await get('/api/v1/reporting/funnel', w).expect(429);
    expect(res.body.error).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    // Other scope groups of the same key keep their own counters.
    await api.http.get('/api/v1/me').set('Authorization', w.auth).expect(200);
  });
});
