import { DataSource } from 'typeorm';
import { offerBody, startApi, TestApi, uniq } from '@app/testing';

describe('admin API', () => {
  let api: TestApi;
  let op: string;
  beforeAll(async () => {
    api = await startApi();
    op = `Bearer ${api.operatorToken}`;
  });
  afterAll(() => api.close());

  const post = (path: string, body: unknown) =>
    api.http
      .post(path)
      .set('Authorization', op)
      .send(body as object);

  describe('operator token', () => {
    it('401 unauthorized without it, 401 invalid_token when wrong', async () => {
      expect((await api.http.get('/admin/api/v1/institutions').expect(401)).body.error).toBe(
        'unauthorized',
      );
      const res = await api.http
        .get('/admin/api/v1/institutions')
        .set('Authorization', 'Bearer nope')
        .expect(401);
      expect(res.body.error).toBe('invalid_token');
    });

    it('an institution API key is not an operator token', async () => {
      const inst = (
        await post('/admin/api/v1/institutions', { name: uniq('B'), plan: 'starter' }).expect(201)
      ).body;
      const key = (
        await post(`/admin/api/v1/institutions/${inst.id}/api-keys`, { name: 'k' }).expect(201)
      ).body.key;
      await api.http
        .get('/admin/api/v1/institutions')
        .set('Authorization', `Bearer ${key}`)
        .expect(401);
    });
  });

  describe('institutions', () => {
    it('creates with program defaults, reads, lists, updates', async () => {
      const name = uniq('Bank ');
      const created = await post('/admin/api/v1/institutions', { name, plan: 'growth' }).expect(
        201,
      );
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name,
        plan: 'growth',
        status: 'active',
        program: {
          supported_locales: ['en'],
          sort_order: 'featured',
          max_active_offers: 10,
          widget_feed_limit: 20,
          service_share_rate: 0.5,
          settlement_hold_days: 30,
          claim_window_days: 90,
        },
        rate_limits: {},
        webhook_url: null,
        created_at: expect.any(String),
      });
      const id = created.body.id;
      expect(
        (
          await api.http
            .get(`/admin/api/v1/institutions/${id}`)
            .set('Authorization', op)
            .expect(200)
        ).body,
      ).toEqual(created.body);

      const patched = await api.http
        .patch(`/admin/api/v1/institutions/${id}`)
        .set('Authorization', op)
        .send({
          plan: 'enterprise',
          program: { supported_locales: ['pt-BR', 'en'], max_active_offers: 3 },
          rate_limits: { reporting: 120 },
        })
        .expect(200);
      expect(patched.body).toMatchObject({
        plan: 'enterprise',
        program: {
          supported_locales: ['pt-BR', 'en'],
          max_active_offers: 3,
          widget_feed_limit: 20,
        },
        rate_limits: { reporting: 120 },
      });

      const list = await api.http
        .get('/admin/api/v1/institutions?limit=1')
        .set('Authorization', op)
        .expect(200);
      expect(list.body.data).toHaveLength(1);
      expect(list.body.pagination).toEqual({ limit: 1, next_cursor: expect.any(String) });
      const next = await api.http
        .get(
          `/admin/api/v1/institutions?limit=1&cursor=${encodeURIComponent(list.body.pagination.next_cursor)}`,
        )
        .set('Authorization', op)
        .expect(200);
      expect(next.body.data[0].id).not.toBe(list.body.data[0].id);
    });

    it('creates with explicit program settings', async () => {
      const res = await post('/admin/api/v1/institutions', {
        name: uniq('B'),
        plan: 'enterprise',
        program: {
          supported_locales: ['es', 'en'],
          sort_order: 'ending_soon',
          max_active_offers: 5,
          widget_feed_limit: 50,
          service_share_rate: 0.25,
          settlement_hold_days: 0,
        },
        rate_limits: { offers: 100, transactions: 200, reporting: 10 },
      }).expect(201);
      expect(res.body.program).toEqual({
        supported_locales: ['es', 'en'],
        sort_order: 'ending_soon',
        max_active_offers: 5,
        widget_feed_limit: 50,
        service_share_rate: 0.25,
        settlement_hold_days: 0,
        claim_window_days: 90,
      });
      expect(res.body.rate_limits).toEqual({ offers: 100, transactions: 200, reporting: 10 });
    });

    it.each([
      [{ plan: 'growth' }, 'name'],
      [{ name: 'x', plan: 'gold' }, 'plan'],
      [
        { name: 'x', plan: 'growth', program: { supported_locales: ['fr'] } },
        'program.supported_locales',
      ],
      [
        { name: 'x', plan: 'growth', program: { supported_locales: [] } },
        'program.supported_locales',
      ],
      [
        { name: 'x', plan: 'growth', program: { widget_feed_limit: 101 } },
        'program.widget_feed_limit',
      ],
      [
        { name: 'x', plan: 'growth', program: { service_share_rate: 1.5 } },
        'program.service_share_rate',
      ],
      [{ name: 'x', plan: 'growth', program: { sort_order: 'random' } }, 'program.sort_order'],
      [{ name: 'x', plan: 'growth', rate_limits: { reporting: 0 } }, 'rate_limits.reporting'],
      [{ name: 'x', plan: 'growth', id: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' }, 'id'],
    ])('400 validation_failed for %j (field %s)', async (body, field) => {
      const res = await post('/admin/api/v1/institutions', body).expect(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('404 institution_not_found and 400 for a non-UUID id', async () => {
      const res = await api.http
        .get('/admin/api/v1/institutions/5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11')
        .set('Authorization', op)
        .expect(404);
      expect(res.body.error).toBe('institution_not_found');
      expect(
        (await api.http.get('/admin/api/v1/institutions/abc').set('Authorization', op).expect(400))
          .body.error,
      ).toBe('validation_failed');
    });
  });

  describe('users and keys', () => {
    let institutionId: string;
    beforeAll(async () => {
      institutionId = (
        await post('/admin/api/v1/institutions', { name: uniq('B'), plan: 'growth' }).expect(201)
      ).body.id;
    });

    it('creates staff with hashed passwords; duplicate e-mail is 409 email_taken', async () => {
      const email = `${uniq('a')}@bank.test`;
      const res = await post(`/admin/api/v1/institutions/${institutionId}/users`, {
        email,
        password: 'a long password',
        role: 'member',
      }).expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        institution_id: institutionId,
        email,
        role: 'member',
        created_at: expect.any(String),
      });
      expect(JSON.stringify(res.body)).not.toContain('password');
      const [row] = await api.app
        .get(DataSource)
        .query(`SELECT password_hash FROM portal_user WHERE id = $1`, [res.body.id]);
      expect(row.password_hash).toMatch(/^scrypt\$/);
      expect(row.password_hash).not.toContain('a long password');
      const dup = await post(`/admin/api/v1/institutions/${institutionId}/users`, {
        email: email.toUpperCase(),
        password: 'another password',
        role: 'admin',
      }).expect(409);
      expect(dup.body.error).toBe('email_taken');
      await post(`/admin/api/v1/institutions/${institutionId}/users`, {
        email: 'not-an-email',
        password: 'a long password',
        role: 'admin',
      }).expect(400);
      await post(`/admin/api/v1/institutions/${institutionId}/users`, {
        email: `${uniq()}@b.test`,
        password: 'short',
        role: 'admin',
      }).expect(400);
      await post(`/admin/api/v1/institutions/${institutionId}/users`, {
        email: `${uniq()}@b.test`,
        password: 'a long password',
        role: 'owner',
      }).expect(400);
    });

    it('issues keys: plaintext once, only the hash stored, scopes and expiry, security activity recorded', async () => {
      const res = await post(`/admin/api/v1/institutions/${institutionId}/api-keys`, {
        name: 'reporting only',
        scopes: ['reporting'],
        expires_at: '2030-01-01T00:00:00Z',
      }).expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        key: expect.stringMatching(/^plo_live_/),
        name: 'reporting only',
        prefix: expect.stringMatching(/^plo_live_…/),
        scopes: ['reporting'],
        expires_at: '2030-01-01T00:00:00.000Z',
        created_at: expect.any(String),
      });
      const db = api.app.get(DataSource);
      const [row] = await db.query(`SELECT key_hash, hint, scopes FROM api_key WHERE id = $1`, [
        res.body.id,
      ]);
      expect(row.key_hash).toHaveLength(64);
      expect(row.key_hash).not.toBe(res.body.key);
      expect(row.hint).toBe(res.body.prefix);
      expect(row.scopes).toEqual(['reporting']);
      const events = await db.query(
        `SELECT type, actor, details FROM security_event WHERE institution_id = $1 AND type = 'api_key.created'`,
        [institutionId],
      );
      expect(
        events.some((e: { details: { key_id: string } }) => e.details.key_id === res.body.id),
      ).toBe(true);
      expect(JSON.stringify(events)).not.toContain(res.body.key);

      const legacy = await post(`/admin/api/v1/institutions/${institutionId}/api-keys`, {
        name: 'legacy',
        scopes: null,
        expires_at: null,
      }).expect(201);
      expect(legacy.body.scopes).toEqual(['offers', 'transactions', 'reporting']);
      expect(legacy.body.expires_at).toBeNull();
      const [legacyRow] = await db.query(`SELECT scopes FROM api_key WHERE id = $1`, [
        legacy.body.id,
      ]);
      expect(legacyRow.scopes).toBeNull();

      await post(`/admin/api/v1/institutions/${institutionId}/api-keys`, {
        name: 'bad',
        scopes: ['admin'],
      }).expect(400);
      await post(`/admin/api/v1/institutions/${institutionId}/api-keys`, {
        name: 'bad',
        expires_at: 'tomorrow',
      }).expect(400);
      await post(`/admin/api/v1/institutions/5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11/api-keys`, {
        name: 'x',
      }).expect(404);
    });
  });

  describe('merchants', () => {
    it('creates with identifiers of every type, lists by category, adds identifiers', async () => {
      const ids = ['card_acceptor', 'pix_key', 'upi_vpa', 'codi', 'psp_merchant_id'].map(
        (type) => ({ type, value: uniq(type) }),
      );
      const category = `cat_${uniq().toLowerCase()}`;
      const res = await post('/admin/api/v1/merchants', {
        name: 'Green Grocer',
        category,
        identifiers: ids,
      }).expect(201);
      expect(res.body).toMatchObject({ name: 'Green Grocer', category });
      const byType = (a: { type: string }, b: { type: string }) => a.type.localeCompare(b.type);
      expect(
        res.body.identifiers.map((i: { type: string; value: string }) => ({
          type: i.type,
          value: i.value,
        })),
      ).toEqual([...ids].sort(byType));
      const more = await post(`/admin/api/v1/merchants/${res.body.id}/identifiers`, {
        type: 'card_acceptor',
        value: uniq('CA'),
      }).expect(201);
      expect(more.body.identifiers).toHaveLength(6);
      const list = await api.http
        .get(`/admin/api/v1/merchants?category=${category}`)
        .set('Authorization', op)
        .expect(200);
      expect(list.body.data.map((m: { id: string }) => m.id)).toEqual([res.body.id]);
    });

    it('searches by a part of the name in any case, or by an identifier’s exact value (q)', async () => {
      const tag = uniq()
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '');
      const acceptor = uniq('CA-SEARCH');
      const bakery = await post('/admin/api/v1/merchants', {
        name: `Blue Bakery ${tag}`,
        category: 'bakeries',
        identifiers: [{ type: 'card_acceptor', value: acceptor }],
      }).expect(201);
      const florist = await post('/admin/api/v1/merchants', {
        name: `Rose Florist ${tag}`,
        category: 'florists',
      }).expect(201);
      const search = async (q: string) =>
        (
          await api.http
            .get('/admin/api/v1/merchants')
            .query({ q, limit: 100 })
            .set('Authorization', op)
            .expect(200)
        ).body.data.map((m: { id: string }) => m.id);
      expect(await search(`BAKERY ${tag.toUpperCase()}`)).toEqual([bakery.body.id]);
      expect((await search(tag)).sort()).toEqual([bakery.body.id, florist.body.id].sort());
      expect(await search(acceptor)).toEqual([bakery.body.id]);
      // An identifier matches whole, never in part.
      expect(await search(acceptor.slice(0, -2))).toEqual([]);
      // With the category too: both filters apply.
      const both = await api.http
        .get('/admin/api/v1/merchants')
        .query({ q: tag, category: 'florists' })
        .set('Authorization', op)
        .expect(200);
      expect(both.body.data.map((m: { id: string }) => m.id)).toEqual([florist.body.id]);
      const bad = await api.http
        .get('/admin/api/v1/merchants')
        .query({ q: 'x'.repeat(201) })
        .set('Authorization', op)
        .expect(400);
      expect(bad.body.details.map((d: { field: string }) => d.field)).toContain('q');
    });

    it('409 identifier_taken when an identifier already maps to a merchant', async () => {
      const value = uniq('CA');
      await post('/admin/api/v1/merchants', {
        name: 'A',
        category: 'fuel',
        identifiers: [{ type: 'card_acceptor', value }],
      }).expect(201);
      const res = await post('/admin/api/v1/merchants', {
        name: 'B',
        category: 'fuel',
        identifiers: [{ type: 'card_acceptor', value }],
      }).expect(409);
      expect(res.body.error).toBe('identifier_taken');
      // The failed create left nothing behind.
      const [{ n }] = await api.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM merchant WHERE name = 'B' AND category = 'fuel'`);
      expect(n).toBe(0);
    });

    it.each([
      [{ name: 'x', category: 'Groceries' }, 'category'],
      [
        { name: 'x', category: 'food', identifiers: [{ type: 'iban', value: 'x' }] },
        'identifiers[0].type',
      ],
      [{ name: '', category: 'food' }, 'name'],
    ])('400 for %j', async (body, field) => {
      const res = await post('/admin/api/v1/merchants', body).expect(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });
  });

  describe('offers', () => {
    let merchantId: string;
    let institutionId: string;
    beforeAll(async () => {
      merchantId = (
        await post('/admin/api/v1/merchants', { name: 'Shop', category: 'fashion' }).expect(201)
      ).body.id;
      institutionId = (
        await post('/admin/api/v1/institutions', { name: uniq('B'), plan: 'growth' }).expect(201)
      ).body.id;
    });

    it('creates a fixed offer with defaults', async () => {
      // A draft: an active untargeted offer would appear in every other test file's feeds.
      const res = await post(
        '/admin/api/v1/offers',
        offerBody(merchantId, { status: 'draft' }),
      ).expect(201);
      expect(res.body).toMatchObject({
        merchant_id: merchantId,
        institution_ids: [],
        status: 'draft',
        min_spend: 20,
        reward_type: 'fixed',
        cashback_amount: 5,
        cashback_percent: null,
        merchant_fee_amount: 0,
        currency: 'USD',
        budget_total: null,
        budget_used: 0,
        segments: [],
        max_redemptions_per_cardholder: 1,
        priority: 0,
      });
      const [row] = await api.app
        .get(DataSource)
        .query(`SELECT min_spend, cashback_amount FROM offer WHERE id = $1`, [res.body.id]);
      expect(row).toEqual({ min_spend: '2000', cashback_amount: '500' }); // minor units
    });

    it('creates a targeted percent offer with budget and segments, then patches it', async () => {
      const res = await post(
        '/admin/api/v1/offers',
        offerBody(merchantId, {
          institution_ids: [institutionId],
          reward_type: 'percent',
          cashback_percent: 12.5,
          cashback_amount: 25,
          merchant_fee_amount: 2.5,
          budget_total: 1000,
          segments: ['premium', 'students'],
          max_redemptions_per_cardholder: 3,
          priority: 7,
          translations: {
            en: { title: 'Twelve and a half', description: 'd' },
            'pt-BR': { title: 'Doze e meio', description: 'd' },
          },
        }),
      ).expect(201);
      expect(res.body).toMatchObject({
        institution_ids: [institutionId],
        reward_type: 'percent',
        cashback_percent: 12.5,
        budget_total: 1000,
        segments: ['premium', 'students'],
        max_redemptions_per_cardholder: 3,
        priority: 7,
      });
      const patched = await api.http
        .patch(`/admin/api/v1/offers/${res.body.id}`)
        .set('Authorization', op)
        .send({
          status: 'paused',
          institution_ids: [],
          budget_total: null,
          reward_type: 'fixed',
          cashback_percent: null,
        })
        .expect(200);
      expect(patched.body).toMatchObject({
        status: 'paused',
        institution_ids: [],
        budget_total: null,
        reward_type: 'fixed',
        cashback_percent: null,
      });
      const list = await api.http
        .get(`/admin/api/v1/offers?merchant_id=${merchantId}&status=paused`)
        .set('Authorization', op)
        .expect(200);
      expect(list.body.data.map((o: { id: string }) => o.id)).toEqual([res.body.id]);
    });

    it.each([
      [{ reward_type: 'percent' }, 'cashback_percent'],
      [{ cashback_percent: 10 }, 'cashback_percent'],
      [{ starts_at: '2030-01-02T00:00:00Z', expires_at: '2030-01-01T00:00:00Z' }, 'expires_at'],
      [{ min_spend: 10.005 }, 'min_spend'],
      [{ currency: 'JPY', cashback_amount: 5.5 }, 'cashback_amount'],
      [{ cashback_amount: 0 }, 'cashback_amount'],
      [{ currency: 'usd' }, 'currency'],
      [{ currency: 'ZZZ' }, 'currency'],
      [{ currency: 'XAU' }, 'currency'],
      [{ translations: { fr: { title: 'x' } } }, 'translations'],
      [{ translations: {} }, 'translations'],
      [{ status: 'live' }, 'status'],
      [{ budget_total: -1 }, 'budget_total'],
      [{ institution_ids: ['5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11'] }, 'institution_ids'],
      [{ merchant_id: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' }, 'merchant_id'],
      [{ starts_at: '2030-01-01' }, 'starts_at'],
    ])('400 for %j', async (override, field) => {
      const res = await post('/admin/api/v1/offers', offerBody(merchantId, override)).expect(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('ending an offer closes its window at that moment', async () => {
      const created = (
        await post(
          '/admin/api/v1/offers',
          offerBody(merchantId, { institution_ids: [institutionId] }),
        ).expect(201)
      ).body;
      const before = Date.now();
      const ended = await api.http
        .patch(`/admin/api/v1/offers/${created.id}`)
        .set('Authorization', op)
        .send({ status: 'ended' })
        .expect(200);
      expect(ended.body.status).toBe('ended');
      expect(Date.parse(ended.body.expires_at)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(ended.body.expires_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(ended.body.expires_at)).toBeLessThan(Date.parse(created.expires_at));
    });

    it('accepts back-filled windows in the past', async () => {
      await post(
        '/admin/api/v1/offers',
        offerBody(merchantId, {
          starts_at: '2020-01-01T00:00:00Z',
          expires_at: '2020-02-01T00:00:00Z',
        }),
      ).expect(201);
    });
  });

  it('settlement run answers {settled}; a bad as_of is 400', async () => {
    const res = await post('/admin/api/v1/settlements/run', {}).expect(200);
    expect(res.body).toEqual({ settled: expect.any(Number) });
    await post('/admin/api/v1/settlements/run', { as_of: 'soon' }).expect(400);
  });
});
