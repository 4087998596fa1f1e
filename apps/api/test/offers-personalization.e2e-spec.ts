import { DataSource } from 'typeorm';
import { createWorld, eventually, startApi, TestApi, uniq, World } from '@app/testing';
import { EngagementRecorder } from '../src/offers/engagement-recorder.service';
import { HISTORY_DAYS } from '../src/offers/offer-statements';

type Item = { id: string; reason?: { code: string; text: string }; title: string };

/** Purchases (or refunds) of a cardholder at a merchant, as ingestion stores them. */
async function history(
  db: DataSource,
  w: World,
  token: string,
  merchantId: string,
  count: number,
  kind: 'purchase' | 'refund' = 'purchase',
) {
  await db.query(
    `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, merchant_id, amount, transacted_at, source, kind, status)
     SELECT $1, $2 || g, $3, $4, 25, now() - g * interval '1 day', 'api', $5, 'unmatched' FROM generate_series(1, $6::int) g`,
    [w.institution.id, uniq('ref-'), token, merchantId, kind, count],
  );
}

describe('GET /api/v1/offers?personalize=true', () => {
  let api: TestApi;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  const feed = (w: World, query: Record<string, string | number>) =>
    api.http
      .get('/api/v1/offers')
      .query({ personalize: 'true', ...query })
      .set('Authorization', w.auth);
  const ranked = async (w: World, query: Record<string, string | number>) =>
    ((await feed(w, query).expect(200)).body.offers as Item[]).map((o) => [o.id, o.reason?.code]);

  /** Merchants in distinct categories unless given; one offer per merchant, in program order. */
  async function world(categories: string[], extra: Parameters<typeof createWorld>[1] = {}) {
    return createWorld(api, {
      merchants: categories.map((category) => ({ category, name: uniq(`Shop ${category} `) })),
      offers: categories.map((_, i) => ({ merchant: i, priority: 100 - i })),
      ...extra,
    });
  }

  it('history at a merchant beats none; without personalize the program order stands and no reason is given', async () => {
    const w = await world(['books', 'fuel']);
    const [a, b] = w.offers.map((o) => o.id);
    await history(db, w, 'ch-hist', w.merchants[1].id, 3);

    const res = await feed(w, { cardholder_token: 'ch-hist' }).expect(200);
    expect(res.body.personalized).toBe(true);
    expect(res.body.offers.map((o: Item) => [o.id, o.reason?.code])).toEqual([
      [b, 'shopped_here'],
      [a, 'popular'],
    ]);
    expect(await ranked(w, { cardholder_token: 'ch-nobody' })).toEqual([
      [a, 'popular'],
      [b, 'popular'],
    ]);
    const plain = await api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: 'ch-hist' })
      .set('Authorization', w.auth)
      .expect(200);
    expect(plain.body.personalized).toBe(false);
    expect(plain.body.offers.map((o: Item) => o.id)).toEqual([a, b]);
    expect(plain.body.offers.every((o: Item) => !('reason' in o))).toBe(true);
    const off = await feed(w, {
      cardholder_token: 'ch-hist',
      personalize: 'false',
      prefer_categories: 'fuel',
    }).expect(200);
    expect(off.body.personalized).toBe(false);
    expect(off.body.offers.map((o: Item) => o.id)).toEqual([a, b]);
  });

  it('purchases in a category (at a merchant without offers) give category affinity', async () => {
    const w = await world(['books', 'groceries'], {});
    const [a, b] = w.offers.map((o) => o.id);
    const other = (
      await api.http
        .post('/admin/api/v1/merchants')
        .set('Authorization', `Bearer ${api.operatorToken}`)
        .send({
          name: uniq('Corner Shop '),
          category: 'groceries',
          identifiers: [{ type: 'card_acceptor', value: uniq('CA') }],
        })
        .expect(201)
    ).body;
    await history(db, w, 'ch-cat', other.id, 2);
    expect(await ranked(w, { cardholder_token: 'ch-cat' })).toEqual([
      [b, 'category_affinity'],
      [a, 'popular'],
    ]);
  });

  it('shopped_here outranks category_affinity; within a tier more purchases rank first', async () => {
    const w = await world(['groceries', 'groceries', 'groceries']);
    const [a, b, c] = w.offers.map((o) => o.id);
    await history(db, w, 'ch-tiers', w.merchants[1].id, 1);
    await history(db, w, 'ch-tiers', w.merchants[2].id, 4);
    expect(await ranked(w, { cardholder_token: 'ch-tiers' })).toEqual([
      [c, 'shopped_here'],
      [b, 'shopped_here'],
      [a, 'category_affinity'],
    ]);
  });

  it('request hints beat history: merchant hints (by name or id) over category hints over history', async () => {
    const w = await world(['books', 'fuel', 'groceries']);
    const [a, b, c] = w.offers.map((o) => o.id);
    await history(db, w, 'ch-hints', w.merchants[0].id, 5);
    const who = { cardholder_token: 'ch-hints' };

    expect(await ranked(w, who)).toEqual([
      [a, 'shopped_here'],
      [b, 'popular'],
      [c, 'popular'],
    ]);
    expect(
      await ranked(w, { ...who, prefer_merchants: `  ${w.merchants[1].name.toUpperCase()} ` }),
    ).toEqual([
      [b, 'preferred_merchant'],
      [a, 'shopped_here'],
      [c, 'popular'],
    ]);
    expect(
      await ranked(w, { ...who, prefer_merchants: `unknown shop,${w.merchants[2].id}` }),
    ).toEqual([
      [c, 'preferred_merchant'],
      [a, 'shopped_here'],
      [b, 'popular'],
    ]);
    expect(await ranked(w, { ...who, prefer_categories: 'fuel' })).toEqual([
      [b, 'preferred_category'],
      [a, 'shopped_here'],
      [c, 'popular'],
    ]);
    expect(
      await ranked(w, { ...who, prefer_categories: 'Fuel', prefer_merchants: w.merchants[2].name }),
    ).toEqual([
      [c, 'preferred_merchant'],
      [b, 'preferred_category'],
      [a, 'shopped_here'],
    ]);
  });

  it('without any signal, popularity among the institution’s cardholders ranks; ties keep the program order', async () => {
    const w = await world(['books', 'fuel', 'travel', 'toys']);
    const [a, b, c, d] = w.offers.map((o) => o.id);
    for (const token of ['p1', 'p2', 'p3']) {
      await api.http
        .post(`/api/v1/offers/${c}/add`)
        .set('Authorization', w.auth)
        .send({ cardholder_token: token })
        .expect(201);
    }
    await api.http
      .post(`/api/v1/offers/${b}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: 'p1' })
      .expect(201);
    expect(await ranked(w, { cardholder_token: 'ch-new' })).toEqual([
      [c, 'popular'],
      [b, 'popular'],
      [a, 'popular'],
      [d, 'popular'],
    ]);
  });

  it('counts purchases only, and only the institution’s own history', async () => {
    const w = await world(['books', 'fuel']);
    const elsewhere = await world(['toys']);
    const [a, b] = w.offers.map((o) => o.id);
    await history(db, w, 'ch-scope', w.merchants[1].id, 2, 'refund');
    await history(db, elsewhere, 'ch-scope', w.merchants[1].id, 9);
    expect(await ranked(w, { cardholder_token: 'ch-scope' })).toEqual([
      [a, 'popular'],
      [b, 'popular'],
    ]);
  });

  it(`counts the last ${HISTORY_DAYS} days of purchases, by the time of purchase`, async () => {
    const w = await world(['books', 'fuel']);
    const [a, b] = w.offers.map((o) => o.id);
    // Received today, transacted a day before the window (a late file): not counted; a day inside
    // it: counted. The other merchant's purchase long ago counts neither.
    const purchase = (token: string, merchant: number, daysAgo: number) =>
      db.query(
        `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, merchant_id, amount, transacted_at, source, kind, status)
         VALUES ($1, $2, $3, $4, 25, now() - $5 * interval '1 day', 'api', 'purchase', 'unmatched')`,
        [w.institution.id, uniq('ref-'), token, w.merchants[merchant].id, daysAgo],
      );
    await purchase('ch-window', 1, HISTORY_DAYS + 1);
    expect(await ranked(w, { cardholder_token: 'ch-window' })).toEqual([
      [a, 'popular'],
      [b, 'popular'],
    ]);
    await purchase('ch-window', 1, HISTORY_DAYS - 1);
    await purchase('ch-window', 0, 400);
    expect(await ranked(w, { cardholder_token: 'ch-window' })).toEqual([
      [b, 'shopped_here'],
      [a, 'popular'],
    ]);
  });

  it('keeps every filter, the limit and total', async () => {
    const w = await createWorld(api, {
      program: { widget_feed_limit: 2 },
      merchants: [{ category: 'books' }, { category: 'fuel' }, { category: 'travel' }],
      offers: [
        { merchant: 0, priority: 3 },
        { merchant: 1, priority: 2, segments: ['vip'] },
        { merchant: 2, priority: 1 },
      ],
    });
    const [a, vip, c] = w.offers.map((o) => o.id);
    await history(db, w, 'ch-lim', w.merchants[1].id, 3);
    await history(db, w, 'ch-lim', w.merchants[2].id, 1);
    let res = await feed(w, { cardholder_token: 'ch-lim' }).expect(200);
    expect(res.body.offers.map((o: Item) => [o.id, o.reason?.code])).toEqual([
      [c, 'shopped_here'],
      [a, 'popular'],
    ]);
    expect(res.body.total).toBe(2);
    res = await feed(w, { cardholder_token: 'ch-lim', segment: 'vip', limit: 1 }).expect(200);
    expect(res.body.offers.map((o: Item) => o.id)).toEqual([vip]);
    expect(res.body.total).toBe(3);
  });

  it('localizes the reason text with the feed locale', async () => {
    const w = await createWorld(api, {
      program: { supported_locales: ['en', 'es', 'pt-BR'] },
      merchants: [{ name: 'Green Grocer', category: 'groceries' }, { category: 'fuel' }],
      offers: [{ merchant: 0 }, { merchant: 1 }],
    });
    await history(db, w, 'ch-loc', w.merchants[0].id, 1);
    const reason = async (locale: string) =>
      ((await feed(w, { cardholder_token: 'ch-loc', locale }).expect(200)).body.offers as Item[])[0]
        .reason;
    expect(await reason('en')).toEqual({
      code: 'shopped_here',
      text: 'Because you shop at Green Grocer',
    });
    expect(await reason('es')).toEqual({
      code: 'shopped_here',
      text: 'Porque compras en Green Grocer',
    });
    expect(await reason('pt-BR')).toEqual({
      code: 'shopped_here',
      text: 'Porque você compra em Green Grocer',
    });
    const second = (
      (await feed(w, { cardholder_token: 'ch-loc', locale: 'es' }).expect(200)).body
        .offers as Item[]
    )[1].reason;
    expect(second).toEqual({ code: 'popular', text: 'Una oferta popular' });
  });

  it('400 validation_failed for more than 50 hints or a hint over 200 characters', async () => {
    const w = await world(['books']);
    const many = Array.from({ length: 51 }, (_, i) => `m${i}`).join(',');
    let res = await feed(w, { cardholder_token: 'ch-v', prefer_merchants: many }).expect(400);
    expect(res.body).toMatchObject({
      error: 'validation_failed',
      details: [{ field: 'prefer_merchants' }],
    });
    res = await feed(w, { cardholder_token: 'ch-v', prefer_categories: 'x'.repeat(201) }).expect(
      400,
    );
    expect(res.body).toMatchObject({
      error: 'validation_failed',
      details: [{ field: 'prefer_categories' }],
    });
  });
});

describe('hints and segment are never stored and never logged', () => {
  let api: TestApi;
  let db: DataSource;
  const captured: string[] = [];
  const realWrite = process.stdout.write.bind(process.stdout);
  const savedLevel = process.env.LOG_LEVEL;

  beforeAll(async () => {
    // pino writes through process.stdout when its write has been replaced: capture every line
    // the production logger emits, at the most verbose level.
    process.env.LOG_LEVEL = 'trace';
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      cb?.();
      return true;
    }) as typeof process.stdout.write;
    api = await startApi();
    db = api.app.get(DataSource);
  });
  afterAll(async () => {
    await api.close();
    process.stdout.write = realWrite;
    process.env.LOG_LEVEL = savedLevel;
  });

  it('leaves no trace of them in log output or in any table', async () => {
    const secret = {
      segment: uniq('SEGSECRET'),
      otherSegment: uniq('SEGSECRET'),
      merchantHint: uniq('MERCHANTHINT'),
      categoryHint: uniq('categoryhint'),
      token: uniq('CHTOKEN'),
    };
    const w = await createWorld(api, {
      merchants: [{ category: 'books' }, {}],
      offers: [{ merchant: 0 }, { merchant: 1, segments: [secret.segment] }],
    });
    const segmentOffer = w.offers[1].id;
    const hints = {
      prefer_merchants: `${secret.merchantHint},${w.merchants[0].id}`,
      prefer_categories: `${secret.categoryHint},books`,
    };

    const ok = await api.http
      .get('/api/v1/offers')
      .query({
        cardholder_token: secret.token,
        personalize: 'true',
        segment: secret.segment,
        ...hints,
      })
      .set('Authorization', w.auth)
      .expect(200);
    expect(ok.body.offers.map((o: Item) => o.id)).toContain(segmentOffer);
    await api.http
      .get('/api/v1/offers')
      .query({
        cardholder_token: secret.token,
        personalize: 'true',
        segment: secret.otherSegment,
        limit: 0,
        ...hints,
      })
      .set('Authorization', w.auth)
      .expect(400);
    await api.http
      .post(`/api/v1/offers/${segmentOffer}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: secret.token, segment: secret.otherSegment })
      .expect(403);
    await api.http
      .post(`/api/v1/offers/${segmentOffer}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: secret.token, segment: secret.segment })
      .expect(201);
    await api.app.get(EngagementRecorder).flush();
    await eventually(
      async () => captured.join('').includes(`"/api/v1/offers/${segmentOffer}/add"`),
      'the logger to drain',
    );

    const logs = captured.join('');
    // The capture works: the request lines are there (as JSON, with the path but no query).
    expect(logs).toContain('"/api/v1/offers"');
    expect(logs).toContain(`"/api/v1/offers/${segmentOffer}/add"`);
    for (const [what, value] of Object.entries(secret)) {
      expect({ what, inLogs: logs.includes(value) }).toEqual({ what, inLogs: false });
    }

    // Stored nowhere: every table's rows as text. (The offer's own segments column names
    // secret.segment because the operator configured it; the request values are the others.)
    const tables: { table_name: string }[] = await db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    for (const value of [secret.otherSegment, secret.merchantHint, secret.categoryHint]) {
      for (const { table_name } of tables) {
        const [{ n }] = await db.query(
          `SELECT count(*)::int AS n FROM "${table_name}" x WHERE x::text LIKE '%' || $1 || '%'`,
          [value],
        );
        expect({ table_name, value, n }).toEqual({ table_name, value, n: 0 });
      }
    }
    const [{ n: segmentOnlyInOffer }] = await db.query(
      `SELECT (SELECT count(*) FROM cardholder_offer x WHERE x::text LIKE '%' || $1 || '%')
            + (SELECT count(*) FROM engagement_event x WHERE x::text LIKE '%' || $1 || '%') AS n`,
      [secret.segment],
    );
    expect(Number(segmentOnlyInOffer)).toBe(0);
  });
});
