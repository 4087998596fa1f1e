// Own BullMQ prefix (no other suite's worker takes these jobs); read at app start.
Object.assign(process.env, { QUEUE_PREFIX: `e2e-qualification-${process.pid}` });

import { localTime } from '@app/domain';
import { apiAndWorker, createWorld, eventually, uniq, World } from '@app/testing';

const ZONE = 'America/Sao_Paulo'; // UTC−3 all year: local hours are 3 hours behind UTC
const hhmm = (minutes: number) => {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
};

describe('offer qualification rules (admin API, simulate, matching)', () => {
  const ctx = apiAndWorker();

  /** A purchase a second from now, in São Paulo's local time. */
  const at = () => new Date(Date.now() + 1000);

  async function world(offers: Record<string, unknown>[], timeZone = ZONE): Promise<World> {
    return createWorld(ctx.api, {
      program: { time_zone: timeZone },
      merchants: [{}],
      offers: offers.map((o) => ({ min_spend: 20, cashback_amount: 5, ...o })),
    });
  }

  async function enrollAll(w: World, token: string): Promise<void> {
    for (const o of w.offers)
      await ctx.api.http
        .post(`/api/v1/offers/${o.id}/add`)
        .set('Authorization', w.auth)
        .send({ cardholder_token: token })
        .expect(201);
  }

  const event = (w: World, token: string, over: Record<string, unknown> = {}) => ({
    cardholder_token: token,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: w.merchants[0].identifiers[0].value,
    amount: 25,
    network: 'visa',
    transaction_ref: uniq('ref-'),
    transacted_at: at().toISOString(),
    ...over,
  });

  async function reasons(w: World, body: Record<string, unknown>) {
    const res = await ctx.api.http
      .post('/api/v1/transactions/simulate')
      .set('Authorization', w.auth)
      .send(body)
      .expect(200);
    return Object.fromEntries(
      res.body.evaluations.map((e: { offer_id: string; reasons: string[] }) => [
        e.offer_id,
        e.reasons,
      ]),
    );
  }

  describe('admin API', () => {
    it('program time_zone: an IANA name (absent until set = UTC); anything else is 400', async () => {
      const plain = await createWorld(ctx.api, {});
      expect(plain.institution.program).not.toHaveProperty('time_zone');
      const w = await createWorld(ctx.api, { program: { time_zone: ZONE } });
      expect(w.institution.program).toMatchObject({ time_zone: ZONE });
      const bad = await ctx.api.http
        .post('/admin/api/v1/institutions')
        .set('Authorization', ctx.op())
        .send({ name: uniq('Bank '), plan: 'growth', program: { time_zone: 'Mars/Olympus' } });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('time_zone');
    });

    it('qualification round-trips (max_spend in major units) and null removes it', async () => {
      const w = await world([
        {
          qualification: {
            max_spend: 120.5,
            days_of_week: [7, 6],
            time_of_day: { from: '22:00', to: '02:00' },
            networks: ['Visa', 'elo'],
          },
        },
      ]);
      expect(w.offers[0].qualification).toEqual({
        max_spend: 120.5,
        days_of_week: [6, 7],
        time_of_day: { from: '22:00', to: '02:00' },
        networks: ['visa', 'elo'],
      });
      const cleared = await ctx.api.http
        .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
        .set('Authorization', ctx.op())
        .send({ qualification: null })
        .expect(200);
      expect(cleared.body.qualification).toBeNull();
      const plain = await world([{}]);
      expect(plain.offers[0].qualification).toBeNull();
    });

    it('feed items carry the offer terms (as the admin API shows them), null without rules', async () => {
      const w = await world([
        {
          priority: 2,
          qualification: { days_of_week: [6, 7], channels: ['in_store'], max_spend: 80 },
        },
        { priority: 1 },
      ]);
      const feed = await ctx.api.http
        .get('/api/v1/offers')
        .query({ cardholder_token: uniq('chk_') })
        .set('Authorization', w.auth)
        .expect(200);
      const byId = new Map(
        feed.body.offers.map((o: { id: string; qualification: unknown }) => [
          o.id,
          o.qualification,
        ]),
      );
      expect(byId.get(w.offers[0].id)).toEqual({
        days_of_week: [6, 7],
        channels: ['in_store'],
        max_spend: 80,
      });
      expect(byId.get(w.offers[1].id)).toBeNull();
    });

    it.each([
      [{ days_of_week: [0] }, 'days_of_week'],
      [{ days_of_week: [8] }, 'days_of_week'],
      [{ time_of_day: { from: '24:00', to: '02:00' } }, 'from'],
      [{ time_of_day: { from: '9:00', to: '10:00' } }, 'from'],
      [{ max_spend: -1 }, 'max_spend'],
      [{ networks: [] }, 'networks'],
    ])('rejects %j (400 naming %s)', async (qualification, field) => {
      const w = await createWorld(ctx.api, { merchants: [{}] });
      const res = await ctx.api.http
        .post('/admin/api/v1/offers')
        .set('Authorization', ctx.op())
        .send({
          merchant_id: w.merchants[0].id,
          status: 'active',
          translations: { en: { title: 'Rule' } },
          min_spend: 20,
          cashback_amount: 5,
          currency: 'USD',
          starts_at: new Date(Date.now() - 86_400_000).toISOString(),
          expires_at: new Date(Date.now() + 86_400_000).toISOString(),
          qualification,
        });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    });
  });

  describe('simulate names the failing rule', () => {
    it('each rule matching and not, days and hours read in the program time zone', async () => {
      const now = localTime(at(), ZONE);
      const utc = localTime(at(), 'UTC');
      const around = (m: number) => ({ from: hhmm(m - 30), to: hhmm(m + 30) });
      const w = await world([
        { qualification: { max_spend: 25 } },
        { qualification: { max_spend: 24.99 } },
        { qualification: { days_of_week: [now.isoWeekday] } },
        { qualification: { days_of_week: [(now.isoWeekday % 7) + 1] } },
        { qualification: { time_of_day: around(now.minuteOfDay) } },
        { qualification: { time_of_day: around(utc.minuteOfDay) } }, // UTC hours: 3 h off
        { qualification: { networks: ['VISA'] } },
        { qualification: { networks: ['elo', 'rupay'] } },
      ]);
      const token = `chk_${uniq()}`;
      await enrollAll(w, token);
      const r = await reasons(w, event(w, token));
      const ids = w.offers.map((o) => o.id);
      // The winner is one of the qualifying offers; the others are better_offer_selected.
      const qualifying = [0, 2, 4, 6].map((i) => r[ids[i]]);
      expect(qualifying.filter((x) => x.length === 0)).toHaveLength(1);
      for (const x of qualifying) expect([[], ['better_offer_selected']]).toContainEqual(x);
      expect(r[ids[1]]).toEqual(['above_max_spend']);
      expect(r[ids[3]]).toEqual(['outside_days']);
      expect(r[ids[5]]).toEqual(['outside_hours']);
      expect(r[ids[7]]).toEqual(['network_mismatch']);
    });

    it('a transaction without a network never matches a network-restricted offer', async () => {
      const w = await world([{ qualification: { networks: ['visa'] } }]);
      const token = `chk_${uniq()}`;
      await enrollAll(w, token);
      const r = await reasons(w, event(w, token, { network: undefined }));
      expect(r[w.offers[0].id]).toEqual(['network_mismatch']);
    });
  });

  describe('matching (worker)', () => {
    const processed = (id: string) =>
      eventually(
        async () => {
          const [t] = await ctx.db.query(`SELECT status FROM transaction WHERE id = $1`, [id]);
          return t && t.status !== 'received' ? (t.status as string) : null;
        },
        `transaction ${id} processed`,
        20_000,
      );

    async function post(w: World, body: Record<string, unknown>) {
      const res = await ctx.api.http
        .post('/api/v1/transactions')
        .set('Authorization', w.auth)
        .send(body);
      expect(res.status).toBe(202);
      return res.body.id as string;
    }

    it('a purchase meeting every rule is matched; failing one rule leaves it unmatched', async () => {
      const now = localTime(at(), ZONE);
      const w = await world([
        {
          qualification: {
            max_spend: 100,
            days_of_week: [now.isoWeekday],
            time_of_day: { from: hhmm(now.minuteOfDay - 60), to: hhmm(now.minuteOfDay + 60) },
            networks: ['visa', 'mastercard'],
          },
        },
      ]);
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'matched'],
        [{ network: 'Mastercard' }, 'matched'],
        [{ amount: 100.01 }, 'unmatched'],
        [{ network: 'amex' }, 'unmatched'],
        [{ network: undefined }, 'unmatched'],
      ];
      for (const [over, expected] of cases) {
        const token = `chk_${uniq()}`;
        await enrollAll(w, token);
        const id = await post(w, event(w, token, over));
        expect([over, await processed(id)]).toEqual([over, expected]);
      }
      const [{ n }] = await ctx.db.query(
        `SELECT count(*)::int AS n FROM redemption WHERE offer_id = $1`,
        [w.offers[0].id],
      );
      expect(n).toBe(2);
    });

    it('days and hours outside the window in the program zone do not match', async () => {
      const now = localTime(at(), ZONE);
      const w = await world([
        { qualification: { days_of_week: [(now.isoWeekday % 7) + 1] } },
        {
          qualification: {
            time_of_day: { from: hhmm(now.minuteOfDay + 60), to: hhmm(now.minuteOfDay + 120) },
          },
        },
      ]);
      const token = `chk_${uniq()}`;
      await enrollAll(w, token);
      expect(await processed(await post(w, event(w, token)))).toBe('unmatched');
    });
  });
});
