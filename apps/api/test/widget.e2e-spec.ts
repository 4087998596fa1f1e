import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { sealSession, sessionKey } from '@app/domain';
import { createWorld, portalLogin, startApi, TestApi, uniq, World } from '@app/testing';
import { EngagementRecorder } from '../src/offers/engagement-recorder.service';

/** A small per-session limit, so the rate-limit test needs few requests (set before the app loads). */
process.env.WIDGET_RATE_LIMIT_PER_MINUTE = '8';

describe('cardholder sessions and the widget API', () => {
  let api: TestApi;
  let db: DataSource;
  let recorder: EngagementRecorder;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    recorder = api.app.get(EngagementRecorder);
  });
  afterAll(() => api.close());

  const mint = (w: World, body: Record<string, unknown>) =>
    api.http.post('/api/v1/cardholder-sessions').set('Authorization', w.auth).send(body);
  const session = async (w: World, body: Record<string, unknown> = {}) => {
    const res = await mint(w, { cardholder_token: uniq('ch-'), ...body }).expect(201);
    return res.body.session_token as string;
  };
  const widgetFeed = (token: string, origin?: string) => {
    const req = api.http.get('/widget/v1/offers').set('Authorization', `Bearer ${token}`);
    return origin ? req.set('Origin', origin) : req;
  };
  const widgetAdd = (token: string, offerId: string, origin?: string) => {
    const req = api.http
      .post(`/widget/v1/offers/${offerId}/add`)
      .set('Authorization', `Bearer ${token}`);
    return origin ? req.set('Origin', origin) : req;
  };
  const setOrigins = async (w: World, origins: string[], extra: Record<string, unknown> = {}) => {
    const { agent, csrf } = await portalLogin(api, w.admin);
    return agent
      .put('/portal/api/widget')
      .set('X-CSRF-Token', csrf)
      .send({ allowed_origins: origins, ...extra });
  };
  const expiredToken = (w: World, cardholder = 'ch-expired') =>
    sealSession(
      {
        institutionId: w.institution.id,
        cardholderToken: cardholder,
        expiresAtMs: Date.now() - 1000,
      },
      sessionKey(api.app.get(AppConfig).secretsKey),
    );
  const events = async (w: World) => {
    await recorder.flush();
    return (await db.query(
      `SELECT kind, cardholder_token, offer_id FROM engagement_event WHERE institution_id = $1 ORDER BY id`,
      [w.institution.id],
    )) as { kind: string; cardholder_token: string; offer_id: string | null }[];
  };

  describe('POST /api/v1/cardholder-sessions', () => {
    let w: World;
    beforeAll(async () => {
      w = await createWorld(api);
    });

    it('mints an opaque cs_ token that expires after 900 s by default', async () => {
      const before = Date.now();
      const res = await mint(w, {
        cardholder_token: 'chk_visible_cardholder_77',
        card_token: 'card_tok_visible',
        segment: 'premium-visible',
        locale: 'es',
      }).expect(201);
      expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'session_token']);
      expect(res.headers['cache-control']).toBe('no-store');
      const token: string = res.body.session_token;
      expect(token).toMatch(/^cs_[A-Za-z0-9_-]+$/);
      const decoded = Buffer.from(token.slice(3), 'base64url').toString('latin1');
      for (const secret of ['visible', 'premium', w.institution.id]) {
        expect(token).not.toContain(secret);
        expect(decoded).not.toContain(secret);
      }
      const ttl = (Date.parse(res.body.expires_at) - before) / 1000;
      expect(ttl).toBeGreaterThan(899);
      expect(ttl).toBeLessThan(905);
    });

    it('takes ttl_seconds from 60 to 3600', async () => {
      for (const ttl of [60, 3600]) {
        const res = await mint(w, { cardholder_token: 'ch', ttl_seconds: ttl }).expect(201);
        const got = (Date.parse(res.body.expires_at) - Date.now()) / 1000;
        expect(Math.abs(got - ttl)).toBeLessThan(5);
      }
    });

    it('refuses a missing cardholder_token and a ttl outside 60–3600 (400 validation_failed)', async () => {
      for (const body of [
        {},
        { cardholder_token: '' },
        { cardholder_token: 'ch', ttl_seconds: 59 },
        { cardholder_token: 'ch', ttl_seconds: 3601 },
        { cardholder_token: 'ch', ttl_seconds: 'soon' },
      ]) {
        const res = await mint(w, body).expect(400);
        expect(res.body.error).toBe('validation_failed');
      }
    });

    it('refuses personal data where a token belongs (400 pii_rejected)', async () => {
      const res = await mint(w, { cardholder_token: 'ana@example.com' }).expect(400);
      expect(res.body.error).toBe('pii_rejected');
    });

    it('needs the API key: no key 401, a reporting-only key 403', async () => {
      await api.http
        .post('/api/v1/cardholder-sessions')
        .send({ cardholder_token: 'c' })
        .expect(401);
      const r = await createWorld(api, { scopes: ['reporting'] });
      const res = await mint(r, { cardholder_token: 'c' }).expect(403);
      expect(res.body.error).toBe('insufficient_scope');
    });
  });

  describe('authentication of the widget API', () => {
    let w: World;
    beforeAll(async () => {
      w = await createWorld(api, { merchants: [{}], offers: [{}] });
    });

    it('no Authorization → 401 unauthorized', async () => {
      const res = await api.http.get('/widget/v1/offers').expect(401);
      expect(res.body.error).toBe('unauthorized');
    });

    it('an API key is not a session → 401 invalid_session', async () => {
      const res = await api.http.get('/widget/v1/offers').set('Authorization', w.auth).expect(401);
      expect(res.body.error).toBe('invalid_session');
      const add = await api.http
        .post(`/widget/v1/offers/${w.offers[0].id}/add`)
        .set('Authorization', w.auth)
        .expect(401);
      expect(add.body.error).toBe('invalid_session');
    });

    it('a tampered session → 401 invalid_session', async () => {
      const token = await session(w);
      const i = Math.floor(token.length / 2);
      const tampered = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      const res = await widgetFeed(tampered).expect(401);
      expect(res.body.error).toBe('invalid_session');
      expect((await widgetFeed(token + 'x')).body.error).toBe('invalid_session');
      expect((await widgetFeed('cs_not-a-session')).body.error).toBe('invalid_session');
    });

    it('an expired session → 401 session_expired, on the feed and the add', async () => {
      const token = expiredToken(w);
      const res = await widgetFeed(token).expect(401);
      expect(res.body).toMatchObject({ error: 'session_expired' });
      const add = await widgetAdd(token, w.offers[0].id as string).expect(401);
      expect(add.body.error).toBe('session_expired');
    });

    it('a session is useless for any other call', async () => {
      const token = await session(w);
      for (const path of [
        '/api/v1/offers?cardholder_token=x',
        '/api/v1/me',
        '/api/v1/reporting/funnel',
      ]) {
        const res = await api.http.get(path).set('Authorization', `Bearer ${token}`);
        expect(res.status).toBe(401);
      }
      const res = await api.http
        .post('/api/v1/cardholder-sessions')
        .set('Authorization', `Bearer ${token}`)
        .send({ cardholder_token: 'other' });
      expect(res.status).toBe(401);
    });

    it('is rate limited per session (429 rate_limited with Retry-After); another session is not', async () => {
      const token = await session(w);
      for (let i = 0; i < 8; i++) await widgetFeed(token).expect(200);
      const res = await widgetFeed(token).expect(429);
      expect(res.body.error).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.headers['x-ratelimit-limit']).toBe('8');
      await widgetFeed(await session(w)).expect(200);
    });
  });

  describe('answers: the feed and the add of /api/v1/offers for the session', () => {
    it('answers the same feed as the API for the cardholder, segment and locale, with no-store and the theme', async () => {
      const w = await createWorld(api, {
        program: { supported_locales: ['en', 'es'] },
        merchants: [{ name: 'Green Grocer' }],
        offers: [
          {
            translations: {
              en: { title: 'Five back', description: 'Spend 20.' },
              es: { title: 'Cinco de vuelta', description: 'Gasta 20.' },
            },
            priority: 2,
          },
          { segments: ['premium'], priority: 1 },
        ],
      });
      const apiFeed = (segment?: string) =>
        api.http
          .get('/api/v1/offers')
          .query({ cardholder_token: 'ch-same', locale: 'es', ...(segment ? { segment } : {}) })
          .set('Authorization', w.auth)
          .expect(200);

      const plain = await widgetFeed(
        await session(w, { cardholder_token: 'ch-same', locale: 'es' }),
      ).expect(200);
      expect(plain.headers['cache-control']).toBe('no-store');
      const { theme, ...feed } = plain.body;
      expect(theme).toEqual({});
      expect(feed).toEqual((await apiFeed()).body);
      expect(feed.offers.map((o: { title: string }) => o.title)).toEqual(['Cinco de vuelta']);

      const premium = await widgetFeed(
        await session(w, { cardholder_token: 'ch-same', locale: 'es', segment: 'premium' }),
      ).expect(200);
      expect(premium.body.offers.map((o: { id: string }) => o.id)).toEqual([
        w.offers[0].id,
        w.offers[1].id,
      ]);
      const { theme: _t, ...premiumFeed } = premium.body;
      expect(premiumFeed).toEqual((await apiFeed('premium')).body);

      // The widget may ask for another language (the element's locale attribute).
      const en = await widgetFeed(await session(w, { locale: 'es' }))
        .query({ locale: 'en' })
        .expect(200);
      expect(en.body.offers[0].title).toBe('Five back');
      // A segment cannot be chosen by the browser: only the session carries it.
      const res = await widgetFeed(await session(w))
        .query({ segment: 'premium' })
        .expect(400);
      expect(res.body.error).toBe('validation_failed');
    });

    it('adds for the session cardholder: 201 added, then 200 already_added with the same id', async () => {
      const w = await createWorld(api, { merchants: [{}], offers: [{}] });
      const token = await session(w, { cardholder_token: 'ch-add', card_token: 'card-add' });
      const offerId = w.offers[0].id;
      const first = await widgetAdd(token, offerId).expect(201);
      expect(first.body).toEqual({ status: 'added', cardholder_offer_id: expect.any(String) });
      expect(first.headers['cache-control']).toBe('no-store');
      const again = await widgetAdd(token, offerId).expect(200);
      expect(again.body).toEqual({
        status: 'already_added',
        cardholder_offer_id: first.body.cardholder_offer_id,
      });
      const [row] = await db.query(
        `SELECT cardholder_token, card_token FROM cardholder_offer WHERE id = $1`,
        [first.body.cardholder_offer_id],
      );
      expect(row).toEqual({ cardholder_token: 'ch-add', card_token: 'card-add' });
      const feed = await widgetFeed(token).expect(200);
      expect(feed.body.offers[0].added).toBe(true);
    });

    it('refuses as the API does: 403 segment_not_eligible, 409 max_active_offers, 404 offer_not_found', async () => {
      const w = await createWorld(api, {
        program: { max_active_offers: 1 },
        merchants: [{}],
        offers: [{ segments: ['premium'] }, {}, {}],
      });
      const plain = await session(w, { cardholder_token: 'ch-refused' });
      expect((await widgetAdd(plain, w.offers[0].id).expect(403)).body.error).toBe(
        'segment_not_eligible',
      );
      await widgetAdd(plain, w.offers[1].id).expect(201);
      expect((await widgetAdd(plain, w.offers[2].id).expect(409)).body.error).toBe(
        'max_active_offers',
      );
      const premium = await session(w, { cardholder_token: 'ch-premium', segment: 'premium' });
      await widgetAdd(premium, w.offers[0].id).expect(201);
      expect(
        (await widgetAdd(plain, '00000000-0000-4000-8000-000000000000').expect(404)).body.error,
      ).toBe('offer_not_found');
    });

    it('a session of one institution never sees or adds another institution’s offers', async () => {
      const a = await createWorld(api, { merchants: [{}], offers: [{}] });
      const b = await createWorld(api, { merchants: [{}], offers: [{}] });
      const token = await session(a, { cardholder_token: 'ch-shared' });
      const feed = await widgetFeed(token).expect(200);
      expect(feed.body.offers.map((o: { id: string }) => o.id)).toEqual([a.offers[0].id]);
      expect((await widgetAdd(token, b.offers[0].id).expect(404)).body.error).toBe(
        'offer_not_found',
      );
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM cardholder_offer WHERE institution_id = $1`,
        [b.institution.id],
      );
      expect(n).toBe(0);
    });

    it('personalizes when the institution enables it for the widget', async () => {
      const w = await createWorld(api, { merchants: [{}], offers: [{}] });
      const token = await session(w);
      expect((await widgetFeed(token).expect(200)).body.personalized).toBe(false);
      await setOrigins(w, [], { personalize: true }).then((r) => expect(r.status).toBe(200));
      const res = await widgetFeed(token).expect(200);
      expect(res.body.personalized).toBe(true);
      expect(res.body.offers[0].reason).toEqual({ code: 'popular', text: expect.any(String) });
    });
  });

  describe('CORS', () => {
    const A = 'https://online.bank-a.example';
    const B = 'https://online.bank-b.example';
    let a: World;
    let b: World;
    beforeAll(async () => {
      a = await createWorld(api, { merchants: [{}], offers: [{}] });
      b = await createWorld(api, { merchants: [{}], offers: [{}] });
      expect((await setOrigins(a, [A, 'http://localhost:5173'])).status).toBe(200);
      expect((await setOrigins(b, [B])).status).toBe(200);
    });
    const preflight = (origin: string, path = '/widget/v1/offers') =>
      api.http
        .options(path)
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'GET')
        .set('Access-Control-Request-Headers', 'authorization');

    it('grants a preflight to an origin some institution lists', async () => {
      for (const path of ['/widget/v1/offers', `/widget/v1/offers/${a.offers[0].id}/add`]) {
        const res = await preflight(A, path).expect(204);
        expect(res.headers['access-control-allow-origin']).toBe(A);
        expect(res.headers['access-control-allow-methods']).toContain('POST');
        expect(res.headers['access-control-allow-headers']).toMatch(/authorization/i);
        expect(res.headers['access-control-max-age']).toBe('600');
        expect(res.headers.vary).toMatch(/origin/i);
      }
    });

    it('gives no CORS headers to a preflight from an unlisted origin', async () => {
      for (const origin of [
        'https://evil.example',
        'null',
        `${A}.evil.example`,
        'http://online.bank-a.example',
      ]) {
        const res = await preflight(origin).expect(204);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
        expect(res.headers['access-control-allow-methods']).toBeUndefined();
      }
    });

    it('allows the real request only from an origin the session’s institution lists', async () => {
      const token = await session(a, { cardholder_token: 'ch-cors' });
      const ok = await widgetFeed(token, A).expect(200);
      expect(ok.headers['access-control-allow-origin']).toBe(A);
      expect(ok.headers['access-control-expose-headers']).toContain('Retry-After');
      expect(ok.headers.vary).toMatch(/origin/i);
      const local = await widgetFeed(token, 'http://localhost:5173').expect(200);
      expect(local.headers['access-control-allow-origin']).toBe('http://localhost:5173');

      for (const origin of ['https://evil.example', B, 'null']) {
        const res = await widgetFeed(token, origin).expect(403);
        expect(res.body.error).toBe('origin_not_allowed');
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    });

    it('an add from an origin listed only by another institution changes nothing', async () => {
      const token = await session(a, { cardholder_token: 'ch-cross-origin' });
      // The preflight passes (B is listed by institution b) …
      expect(
        (await preflight(B, `/widget/v1/offers/${a.offers[0].id}/add`)).headers[
          'access-control-allow-origin'
        ],
      ).toBe(B);
      // … but the request itself is refused before it acts.
      const res = await widgetAdd(token, a.offers[0].id, B).expect(403);
      expect(res.body.error).toBe('origin_not_allowed');
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM cardholder_offer WHERE cardholder_token = 'ch-cross-origin'`,
      );
      expect(n).toBe(0);
      await widgetAdd(token, a.offers[0].id, A).expect(201);
    });

    it('lets a listed origin read 401s (expired, invalid) so the widget can tell them apart', async () => {
      const expired = await widgetFeed(expiredToken(a), A).expect(401);
      expect(expired.body.error).toBe('session_expired');
      expect(expired.headers['access-control-allow-origin']).toBe(A);
      const invalid = await widgetFeed('cs_garbage', A).expect(401);
      expect(invalid.body.error).toBe('invalid_session');
      expect(invalid.headers['access-control-allow-origin']).toBe(A);
      const unlisted = await widgetFeed('cs_garbage', 'https://evil.example').expect(401);
      expect(unlisted.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('needs no CORS for the service’s own origin (the portal preview)', async () => {
      const token = await session(a);
      const res = await api.http
        .get('/widget/v1/offers')
        .set('Host', 'offers.internal')
        .set('Origin', 'http://offers.internal')
        .set('Authorization', `Bearer ${token}`)
        .expect(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('portal widget settings', () => {
    it('admins set exact origins (https; http allowed outside production), theme defaults and personalization', async () => {
      const w = await createWorld(api);
      const { agent, csrf } = await portalLogin(api, w.admin);
      const empty = await agent.get('/portal/api/widget').expect(200);
      expect(empty.body).toMatchObject({
        allowed_origins: [],
        theme: {},
        personalize: false,
        script_url: expect.stringMatching(/\/widget\/v1\/offers-widget\.js$/),
        updated_at: null,
      });
      const res = await agent
        .put('/portal/api/widget')
        .set('X-CSRF-Token', csrf)
        .send({
          allowed_origins: [
            'https://Bank.example/',
            'https://bank.example',
            'http://localhost:8080',
          ],
          theme: { accent: '#0a58e0', radius: '8px', mode: 'dark', font: 'Inter, sans-serif' },
        })
        .expect(200);
      expect(res.body).toMatchObject({
        allowed_origins: ['https://bank.example', 'http://localhost:8080'],
        theme: { accent: '#0a58e0', radius: '8px', mode: 'dark', font: 'Inter, sans-serif' },
        personalize: false,
      });
      const activity = await agent.get('/portal/api/security-activity').expect(200);
      expect(activity.body.data[0]).toMatchObject({ type: 'widget.settings_changed' });

      const token = await session(w);
      expect((await widgetFeed(token).expect(200)).body.theme).toEqual(res.body.theme);
    });

    it('refuses paths, wildcards and bad theme values; members may not change settings', async () => {
      const w = await createWorld(api);
      const { agent, csrf } = await portalLogin(api, w.admin);
      for (const body of [
        { allowed_origins: ['https://bank.example/app'] },
        { allowed_origins: ['https://*.bank.example'] },
        { allowed_origins: ['*'] },
        { allowed_origins: [], theme: { accent: 'red;background:url(x)' } },
        { allowed_origins: [], theme: { radius: '100px' } },
      ]) {
        const res = await agent.put('/portal/api/widget').set('X-CSRF-Token', csrf).send(body);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('validation_failed');
      }
      const member = await portalLogin(api, w.member);
      const res = await member.agent
        .put('/portal/api/widget')
        .set('X-CSRF-Token', member.csrf)
        .send({ allowed_origins: ['https://bank.example'] });
      expect(res.status).toBe(403);
    });
  });

  describe('funnel', () => {
    it('a widget feed records exactly one widget view and one impression per offer returned; an add one add success', async () => {
      const w = await createWorld(api, {
        program: { widget_feed_limit: 2 },
        merchants: [{}],
        offers: [{ priority: 3 }, { priority: 2 }, { priority: 1 }],
      });
      const start = new Date(Date.now() - 1000).toISOString();
      const token = await session(w, { cardholder_token: 'ch-funnel' });
      const feed = await widgetFeed(token).expect(200);
      expect(feed.body.offers).toHaveLength(2);
      await widgetAdd(token, w.offers[0].id).expect(201);
      // Neither a repeated add, nor refused requests, nor minting count.
      await widgetAdd(token, w.offers[0].id).expect(200);
      await widgetFeed(expiredToken(w, 'ch-funnel')).expect(401);
      await mint(w, { cardholder_token: 'ch-other' }).expect(201);

      expect(await events(w)).toEqual([
        { kind: 'widget_view', cardholder_token: 'ch-funnel', offer_id: null },
        { kind: 'impression', cardholder_token: 'ch-funnel', offer_id: w.offers[0].id },
        { kind: 'impression', cardholder_token: 'ch-funnel', offer_id: w.offers[1].id },
        { kind: 'add_success', cardholder_token: 'ch-funnel', offer_id: w.offers[0].id },
      ]);
      const funnel = await api.http
        .get('/api/v1/reporting/funnel')
        .query({ from: start })
        .set('Authorization', w.auth)
        .expect(200);
      expect(funnel.body.data).toEqual({
        widget_views: 1,
        unique_cardholders: 1,
        offer_impressions: 2,
        offer_add_successes: 1,
        redemptions: 0,
      });
    });

    it('portal previews are not counted', async () => {
      const w = await createWorld(api, { merchants: [{}], offers: [{}] });
      const { agent, csrf } = await portalLogin(api, w.admin);
      const res = await agent
        .post('/portal/api/widget/preview-session')
        .set('X-CSRF-Token', csrf)
        .send({})
        .expect(201);
      const token = res.body.session_token as string;
      expect((await widgetFeed(token).expect(200)).body.offers).toHaveLength(1);
      expect(await events(w)).toEqual([]);
    });

    it('a preview session cannot add: 403 preview_read_only, nothing written', async () => {
      const w = await createWorld(api, { merchants: [{}], offers: [{}] });
      const { agent, csrf } = await portalLogin(api, w.admin);
      const res = await agent
        .post('/portal/api/widget/preview-session')
        .set('X-CSRF-Token', csrf)
        .send({})
        .expect(201);
      const refused = await widgetAdd(res.body.session_token, w.offers[0].id).expect(403);
      expect(refused.body).toMatchObject({ error: 'preview_read_only' });
      expect(
        await db.query(`SELECT 1 FROM cardholder_offer WHERE institution_id = $1`, [
          w.institution.id,
        ]),
      ).toEqual([]);
      expect(await events(w)).toEqual([]);
    });
  });
});
