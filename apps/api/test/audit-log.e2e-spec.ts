import { DataSource } from 'typeorm';
import {
  createOperator,
  createWorld,
  failAuditAppends,
  startApi,
  TestApi,
  uniq,
  World,
} from '@app/testing';
import { verifyAuditChain } from '../../cli/src/audit-verify.command';

interface Entry {
  id: string;
  at: string;
  actor: { type: string; id: string | null; email: string | null };
  action: string;
  resource_type: string;
  resource_id: string | null;
  institution_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
  hash: string;
}

/**
 * The audit log (docs/operators.md): an entry for each kind of admin action, committed with it, with
 * the actor, before and after (no secrets) and the request id; break-glass uses; the reads and
 * the CSV export; append-only; the hash chain and its check.
 */
describe('audit log', () => {
  let api: TestApi;
  let db: DataSource;
  let w: World;
  let admin: Awaited<ReturnType<typeof createOperator>>;
  const bg = () => `Bearer ${api.operatorToken}`;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    w = await createWorld(api, { merchants: [{}], offers: [{}] });
    admin = await createOperator(api, 'admin');
  });
  afterAll(() => api.close());

  async function entries(query: Record<string, string>, auth = admin.auth): Promise<Entry[]> {
    const res = await api.http
      .get('/admin/api/v1/audit')
      .query({ limit: '1000', ...query })
      .set('Authorization', auth)
      .expect(200);
    return res.body.data;
  }

  /** The one entry of a request (by its X-Request-Id). */
  async function entryOf(res: { headers: Record<string, string> }): Promise<Entry> {
    const requestId = res.headers['x-request-id'];
    expect(requestId).toBeTruthy();
    const [row] = await db.query(`SELECT id FROM audit_log WHERE request_id = $1 ORDER BY seq`, [
      requestId,
    ]);
    expect(row).toBeDefined();
    const found = (await entries({})).find((e) => e.id === row.id);
    expect(found).toBeDefined();
    return found!;
  }

  const asAdmin = { type: 'operator', id: '', email: '' };
  beforeAll(() => {
    asAdmin.id = admin.id;
    asAdmin.email = admin.email;
  });

  it('institutions: create, update, suspend, staff user, API key; no password or key in them', async () => {
    const created = await api.http
      .post('/admin/api/v1/institutions')
      .set('Authorization', admin.auth)
      .send({ name: uniq('Bank '), plan: 'growth' })
      .expect(201);
    const id = created.body.id;
    expect(await entryOf(created)).toMatchObject({
      actor: asAdmin,
      action: 'institution.create',
      resource_type: 'institution',
      resource_id: id,
      institution_id: id,
      before: null,
      after: { id, plan: 'growth', status: 'active' },
      request_id: created.headers['x-request-id'],
    });

    const updated = await api.http
      .patch(`/admin/api/v1/institutions/${id}`)
      .set('Authorization', admin.auth)
      .send({ plan: 'enterprise' })
      .expect(200);
    expect(await entryOf(updated)).toMatchObject({
      action: 'institution.update',
      before: { plan: 'growth' },
      after: { plan: 'enterprise' },
    });

    const suspended = await api.http
      .patch(`/admin/api/v1/institutions/${id}`)
      .set('Authorization', admin.auth)
      .send({ status: 'suspended' })
      .expect(200);
    expect(await entryOf(suspended)).toMatchObject({
      action: 'institution.suspend',
      before: { status: 'active' },
      after: { status: 'suspended' },
    });

    const password = 'a very secret passphrase';
    const user = await api.http
      .post(`/admin/api/v1/institutions/${w.institution.id}/users`)
      .set('Authorization', admin.auth)
      .send({ email: `${uniq('u-')}@bank.test`, password, role: 'member' })
      .expect(201);
    const userEntry = await entryOf(user);
    expect(userEntry).toMatchObject({
      action: 'portal_user.create',
      resource_id: user.body.id,
      institution_id: w.institution.id,
      after: { email: user.body.email, role: 'member' },
    });
    expect(JSON.stringify(userEntry)).not.toContain(password);

    const hold = await api.http
      .put(`/admin/api/v1/institutions/${id}/legal-hold`)
      .set('Authorization', admin.auth)
      .send({ reason: 'case 7' })
      .expect(200);
    expect(await entryOf(hold)).toMatchObject({
      action: 'legal_hold.place',
      resource_id: id,
      after: { institution_id: id, reason: 'case 7' },
    });
    const lifted = await api.http
      .delete(`/admin/api/v1/institutions/${id}/legal-hold`)
      .set('Authorization', admin.auth)
      .expect(204);
    expect(await entryOf(lifted)).toMatchObject({
      action: 'legal_hold.lift',
      before: { legal_hold: true },
      after: { legal_hold: false },
    });

    const key = await api.http
      .post(`/admin/api/v1/institutions/${w.institution.id}/api-keys`)
      .set('Authorization', admin.auth)
      .send({ name: 'audited' })
      .expect(201);
    const keyEntry = await entryOf(key);
    expect(keyEntry).toMatchObject({
      actor: asAdmin,
      action: 'api_key.created',
      resource_type: 'api_key',
      resource_id: key.body.id,
      institution_id: w.institution.id,
      after: { key_id: key.body.id, name: 'audited', prefix: key.body.prefix },
    });
    expect(JSON.stringify(keyEntry)).not.toContain(key.body.key);
    const [stored] = await db.query(`SELECT after::text AS t FROM audit_log WHERE id = $1`, [
      keyEntry.id,
    ]);
    expect(stored.t).not.toContain(key.body.key);
  });

  it('merchants and offers: create, identifiers, edits and state changes with before and after', async () => {
    const m = await api.http
      .post('/admin/api/v1/merchants')
      .set('Authorization', admin.auth)
      .send({ name: uniq('M '), category: 'groceries', identifiers: [] })
      .expect(201);
    expect(await entryOf(m)).toMatchObject({
      action: 'merchant.create',
      resource_type: 'merchant',
      resource_id: m.body.id,
      after: { identifiers: [] },
    });
    const value = uniq('CA');
    const ident = await api.http
      .post(`/admin/api/v1/merchants/${m.body.id}/identifiers`)
      .set('Authorization', admin.auth)
      .send({ type: 'card_acceptor', value })
      .expect(201);
    expect(await entryOf(ident)).toMatchObject({
      action: 'merchant.identifier_add',
      before: { identifiers: [] },
      after: { identifiers: [{ type: 'card_acceptor', value }] },
    });

    const offer = await api.http
      .post('/admin/api/v1/offers')
      .set('Authorization', admin.auth)
      .send({
        merchant_id: m.body.id,
        status: 'draft',
        translations: { en: { title: 'Audited', description: 'x' } },
        min_spend: 10,
        cashback_amount: 2,
        currency: 'USD',
        starts_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      })
      .expect(201);
    const offerId = offer.body.id;
    expect(await entryOf(offer)).toMatchObject({
      action: 'offer.create',
      resource_type: 'offer',
      resource_id: offerId,
      after: { status: 'draft', cashback_amount: 2 },
    });
    const edit = await api.http
      .patch(`/admin/api/v1/offers/${offerId}`)
      .set('Authorization', admin.auth)
      .send({ cashback_amount: 3, priority: 4 })
      .expect(200);
    expect(await entryOf(edit)).toMatchObject({
      action: 'offer.update',
      before: { cashback_amount: 2, priority: 0 },
      after: { cashback_amount: 3, priority: 4 },
    });
    for (const [status, action] of [
      ['active', 'offer.activate'],
      ['paused', 'offer.pause'],
      ['ended', 'offer.end'],
    ] as const) {
      const res = await api.http
        .patch(`/admin/api/v1/offers/${offerId}`)
        .set('Authorization', admin.auth)
        .send({ status })
        .expect(200);
      expect(await entryOf(res)).toMatchObject({ action, after: { status } });
    }
    const history = await entries({ resource_type: 'offer', resource_id: offerId });
    expect(history.map((e) => e.action)).toEqual([
      'offer.end',
      'offer.pause',
      'offer.activate',
      'offer.update',
      'offer.create',
    ]);
  });

  it('operations: settlement runs, match-failure retries, statement closes', async () => {
    const run = await api.http
      .post('/admin/api/v1/settlements/run')
      .set('Authorization', admin.auth)
      .send({ as_of: '2000-01-01T00:00:00Z' })
      .expect(200);
    expect(await entryOf(run)).toMatchObject({
      action: 'settlement.run',
      resource_type: 'settlement_run',
      after: { as_of: '2000-01-01T00:00:00.000Z', trigger: 'operator', settled: 0 },
    });
    const retry = await api.http
      .post('/admin/api/v1/match-failures/retry')
      .set('Authorization', admin.auth)
      .send({ transaction_ids: ['00000000-0000-4000-8000-000000000000'] })
      .expect(200);
    expect(await entryOf(retry)).toMatchObject({
      action: 'match_failure.retry',
      after: { status: 'received', transaction_ids: [] },
    });
    const through = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const close = await api.http
      .post('/admin/api/v1/statements/close')
      .set('Authorization', admin.auth)
      .send({ through, institution_id: w.institution.id })
      .expect(200);
    expect(await entryOf(close)).toMatchObject({
      action: 'statement.close',
      institution_id: w.institution.id,
      after: { through, closed: close.body.closed },
    });
  });

  it("a settlement run's entry commits with its final count, or neither does", async () => {
    const asOf = '2000-01-02T00:00:00Z';
    const run = () =>
      api.http
        .post('/admin/api/v1/settlements/run')
        .set('Authorization', admin.auth)
        .send({ as_of: asOf });
    const entries = () =>
      db.query(
        `SELECT a.action FROM audit_log a JOIN settlement_run r ON r.id::text = a.resource_id
          WHERE r.as_of = $1`,
        [asOf],
      );
    // The entry cannot be written: the count is not either.
    let restore = await failAuditAppends(db, 'settlement.run');
    try {
      await run().expect(500);
    } finally {
      await restore();
    }
    expect(await entries()).toEqual([]);
    // The count cannot be written: the entry is not either.
    await db.query(`
      CREATE FUNCTION test_fail_run_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'test: settled_count refused'; END $$`);
    await db.query(`CREATE TRIGGER test_fail_run_count BEFORE UPDATE ON settlement_run
      FOR EACH ROW EXECUTE FUNCTION test_fail_run_count()`);
    restore = async () => {
      await db.query(`DROP TRIGGER test_fail_run_count ON settlement_run`);
      await db.query(`DROP FUNCTION test_fail_run_count()`);
    };
    try {
      await run().expect(500);
    } finally {
      await restore();
    }
    expect(await entries()).toEqual([]);
    await run().expect(200);
    expect(await entries()).toEqual([{ action: 'settlement.run' }]);
  });

  it('operators: create, role change, disable, tokens, sign-in; never a password or token', async () => {
    const password = 'an operator passphrase';
    const created = await api.http
      .post('/admin/api/v1/operators')
      .set('Authorization', admin.auth)
      .send({ email: `${uniq('Op-')}@Ops.Test`, name: 'Audited', password, role: 'author' })
      .expect(201);
    const id = created.body.id;
    expect(created.body.email).toBe(created.body.email.toLowerCase());
    const createdEntry = await entryOf(created);
    expect(createdEntry).toMatchObject({
      action: 'operator.create',
      resource_type: 'operator',
      resource_id: id,
      after: { role: 'author', status: 'active' },
    });
    expect(JSON.stringify(createdEntry)).not.toContain(password);

    const login = await api.http
      .post('/admin/api/v1/auth/login')
      .send({ email: created.body.email, password })
      .expect(200);
    expect(await entryOf(login)).toMatchObject({
      actor: { type: 'operator', id, email: created.body.email },
      action: 'operator.login',
      resource_type: 'operator_session',
    });

    const token = await api.http
      .post(`/admin/api/v1/operators/${id}/tokens`)
      .set('Authorization', admin.auth)
      .send({ name: 'ci' })
      .expect(201);
    const tokenEntry = await entryOf(token);
    expect(tokenEntry).toMatchObject({
      action: 'operator_token.create',
      resource_id: token.body.id,
      after: { name: 'ci', operator_id: id, prefix: token.body.prefix },
    });
    expect(JSON.stringify(tokenEntry)).not.toContain(token.body.token);

    const role = await api.http
      .patch(`/admin/api/v1/operators/${id}`)
      .set('Authorization', admin.auth)
      .send({ role: 'approver' })
      .expect(200);
    expect(await entryOf(role)).toMatchObject({
      action: 'operator.role_change',
      before: { role: 'author' },
      after: { role: 'approver' },
    });
    const newPassword = 'yet another passphrase';
    const reset = await api.http
      .patch(`/admin/api/v1/operators/${id}`)
      .set('Authorization', admin.auth)
      .send({ password: newPassword })
      .expect(200);
    const resetEntry = await entryOf(reset);
    expect(resetEntry).toMatchObject({
      action: 'operator.update',
      after: { password: '[redacted]' },
    });
    expect(JSON.stringify(resetEntry)).not.toContain(newPassword);

    const disabled = await api.http
      .patch(`/admin/api/v1/operators/${id}`)
      .set('Authorization', admin.auth)
      .send({ status: 'disabled' })
      .expect(200);
    expect(await entryOf(disabled)).toMatchObject({
      action: 'operator.disable',
      before: { status: 'active' },
      after: { status: 'disabled', revoked_sessions: 1, revoked_tokens: 1 },
    });
    const byActor = await entries({ actor: admin.id, resource_type: 'operator', resource_id: id });
    expect(byActor.map((e) => e.action)).toEqual([
      'operator.disable',
      'operator.update',
      'operator.role_change',
      'operator.create',
    ]);
  });

  it("staff: the institution's security activity is in the log too, with the staff user and IP", async () => {
    const res = await api.http.post('/portal/api/auth/login').send(w.admin).expect(200);
    const [row] = await db.query(
      `SELECT actor_type, actor_id, actor_email, action, resource_type, institution_id, ip
         FROM audit_log WHERE institution_id = $1 AND action = 'login.succeeded'
        ORDER BY seq DESC LIMIT 1`,
      [w.institution.id],
    );
    expect(row).toEqual({
      actor_type: 'staff',
      actor_id: res.body.user.id,
      actor_email: w.admin.email,
      action: 'login.succeeded',
      resource_type: 'portal_user',
      institution_id: w.institution.id,
      ip: expect.any(String),
    });
    const mine = await entries({ institution_id: w.institution.id });
    expect(mine.map((e) => e.action)).toEqual(
      expect.arrayContaining(['login.succeeded', 'api_key.created', 'institution.create']),
    );
  });

  it('break-glass: every write names it, and every read leaves an entry too', async () => {
    const write = await api.http
      .post('/admin/api/v1/merchants')
      .set('Authorization', bg())
      .send({ name: uniq('M '), category: 'groceries', identifiers: [] })
      .expect(201);
    expect(await entryOf(write)).toMatchObject({
      actor: { type: 'break_glass', id: null, email: null },
      action: 'merchant.create',
    });
    const read = await api.http
      .get(`/admin/api/v1/offers/${w.offers[0].id}`)
      .set('Authorization', bg())
      .expect(200);
    expect(await entryOf(read)).toMatchObject({
      actor: { type: 'break_glass' },
      action: 'break_glass.read',
      resource_type: 'route',
      resource_id: 'GET /admin/api/v1/offers/:id',
      after: { path: `/admin/api/v1/offers/${w.offers[0].id}` },
    });
    const mine = await entries({ actor: 'break_glass' });
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.every((e) => e.actor.type === 'break_glass')).toBe(true);
    // Named operators' reads are not entries.
    const before = (await db.query(`SELECT count(*)::int AS n FROM audit_log`))[0].n;
    await api.http
      .get(`/admin/api/v1/offers/${w.offers[0].id}`)
      .set('Authorization', admin.auth)
      .expect(200);
    expect((await db.query(`SELECT count(*)::int AS n FROM audit_log`))[0].n).toBe(before);
  });

  it('is read keyset paged and filtered by time, and exported as CSV', async () => {
    const from = new Date().toISOString();
    for (let i = 0; i < 3; i++)
      await api.http
        .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
        .set('Authorization', admin.auth)
        .send({ priority: 10 + i })
        .expect(200);
    const q = { resource_type: 'offer', resource_id: w.offers[0].id, from };
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await api.http
        .get('/admin/api/v1/audit')
        .query({ ...q, limit: '1', ...(cursor ? { cursor } : {}) })
        .set('Authorization', admin.auth)
        .expect(200);
      seen.push(...res.body.data.map((e: Entry) => e.after?.priority));
      cursor = res.body.pagination.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([12, 11, 10]);
    expect(await entries({ ...q, to: from })).toEqual([]);

    const csv = await api.http
      .get('/admin/api/v1/audit')
      .query(q)
      .set('Authorization', admin.auth)
      .set('Accept', 'text/csv')
      .expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe(
      'id,at,actor_type,actor_id,actor_email,action,resource_type,resource_id,institution_id,request_id,ip,before,after,hash',
    );
    expect(lines.filter((l) => l.includes('offer.update'))).toHaveLength(3);
    expect(lines[1]).toContain('""priority"":12');
    expect(lines[1]).toContain(',offer.update,offer,');

    const bad = await api.http
      .get('/admin/api/v1/audit?actor=nobody')
      .set('Authorization', admin.auth)
      .expect(400);
    expect(bad.body.error).toBe('validation_failed');
  });

  it('is append-only: no statement changes or deletes an entry', async () => {
    const [{ id }] = await db.query(`SELECT id FROM audit_log ORDER BY seq DESC LIMIT 1`);
    await expect(db.query(`UPDATE audit_log SET action = 'x' WHERE id = $1`, [id])).rejects.toThrow(
      /append-only/,
    );
    await expect(db.query(`DELETE FROM audit_log WHERE id = $1`, [id])).rejects.toThrow(
      /append-only/,
    );
    await expect(db.query(`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);
  });

  it('the hash chain verifies, and a tampered entry is found', async () => {
    const intact = await verifyAuditChain(db);
    expect(intact.problem).toBeNull();
    expect(intact.checked).toBeGreaterThan(10);

    const change = await api.http
      .patch(`/admin/api/v1/offers/${w.offers[0].id}`)
      .set('Authorization', admin.auth)
      .send({ priority: 77 })
      .expect(200);
    const target = await entryOf(change);
    const [orig] = await db.query(`SELECT after::text AS after FROM audit_log WHERE id = $1`, [
      target.id,
    ]);
    // Around the trigger, as someone with the database's superuser might.
    const tamper = (after: string) =>
      db.transaction(async (m) => {
        await m.query(`SET LOCAL session_replication_role = replica`);
        await m.query(`UPDATE audit_log SET after = $2::jsonb WHERE id = $1`, [target.id, after]);
      });
    await tamper(JSON.stringify({ ...target.after, priority: 1 }));
    try {
      const broken = await verifyAuditChain(db);
      expect(broken.problem).toMatchObject({ entry_id: target.id, problem: 'hash_mismatch' });
    } finally {
      await tamper(orig.after);
    }
    expect((await verifyAuditChain(db)).problem).toBeNull();
  });
});
