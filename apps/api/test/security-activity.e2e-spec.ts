import { DataSource } from 'typeorm';
import { SecurityActivityAudit1795722499837 } from '@app/db/migrations/1795722499837-security-activity-audit';
import { createWorld, portalLogin, startApi, TestApi, World } from '@app/testing';
import { verifyAuditChain } from '../../cli/src/audit-verify.command';

interface Activity {
  id: string;
  type: string;
  actor: string;
  details: Record<string, unknown>;
  ip: string | null;
  created_at: string;
}

/**
 * The portal's security activity is read from the audit log (docs/portal.md, docs/operators.md):
 * the same entries the operators read for the institution, in the page's shape; what
 * security_event held before the audit log is copied into the chain by a migration, which keeps
 * the chain valid and copies nothing twice.
 */
describe('security activity from the audit log', () => {
  let api: TestApi;
  let db: DataSource;
  let w: World;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    w = await createWorld(api);
  });
  afterAll(() => api.close());

  async function activity(): Promise<Activity[]> {
    const { agent } = await portalLogin(api, w.admin);
    const res = await agent.get('/portal/api/security-activity').query({ limit: 200 }).expect(200);
    return res.body.data;
  }

  it("lists the institution's audit entries of security actions, and only those", async () => {
    const { agent, csrf } = await portalLogin(api, w.admin);
    const key = await agent
      .post('/portal/api/api-keys')
      .set('X-CSRF-Token', csrf)
      .send({ name: 'from the log', scopes: ['offers'] })
      .expect(201);
    // An operator's change that is not a security event (a statement close) is not listed.
    await api.http
      .post('/admin/api/v1/statements/close')
      .set('Authorization', `Bearer ${api.operatorToken}`)
      .send({ through: '2000-01-01', institution_id: w.institution.id })
      .expect(200);
    const rows = await activity();
    const created = rows.find(
      (r) => r.type === 'api_key.created' && r.details.key_id === key.body.id,
    );
    expect(created).toMatchObject({
      actor: w.admin.email,
      details: { name: 'from the log', prefix: key.body.prefix, scopes: ['offers'] },
    });
    const [entry] = await db.query(
      `SELECT id, created_at FROM audit_log WHERE action = 'api_key.created' AND resource_id = $1`,
      [key.body.id],
    );
    expect(created!.id).toBe(entry.id);
    expect(created!.created_at).toBe(entry.created_at.toISOString());
    expect(rows.map((r) => r.type)).not.toContain('statement.close');
    // The operator's bootstrap key is the operator's, without naming who.
    expect(rows.find((r) => r.type === 'api_key.created' && r.actor === 'operator')).toBeDefined();
    // Nothing of another institution.
    const other = await createWorld(api);
    const mine = new Set(rows.map((r) => r.id));
    const theirs: { id: string }[] = await db.query(
      `SELECT id FROM audit_log WHERE institution_id = $1`,
      [other.institution.id],
    );
    expect(theirs.length).toBeGreaterThan(0);
    for (const t of theirs) expect(mine.has(t.id)).toBe(false);
  });

  it('copies what only security_event held into the chain, once, with its time, and the chain verifies', async () => {
    const old = '2025-03-04T05:06:07.891Z';
    const [login] = await db.query(
      `INSERT INTO security_event (institution_id, type, actor, details, ip, created_at)
       VALUES ($1, 'login.failed', $2, '{}', '203.0.113.9', $3) RETURNING id`,
      [w.institution.id, w.admin.email, old],
    );
    await db.query(
      `INSERT INTO security_event (institution_id, type, actor, details, created_at)
       VALUES ($1, 'cardholder.erasure_requested', 'API key plo_live_…abcd (desk)',
               '{"erasure_id": "6a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}', $2::timestamptz + interval '1 second')`,
      [w.institution.id, old],
    );
    // A row that has its twin (written with its entry by SecurityActivityService) is not copied.
    const before = await db.query(`SELECT count(*)::int AS n FROM audit_log`);

    const migration = new SecurityActivityAudit1795722499837();
    for (let run = 0; run < 2; run++) {
      const qr = db.createQueryRunner();
      await qr.startTransaction();
      await migration.up(qr);
      await qr.commitTransaction();
      await qr.release();
    }
    const [after] = await db.query(`SELECT count(*)::int AS n FROM audit_log`);
    expect(after.n).toBe(before[0].n + 2);

    const rows = await activity();
    expect(rows.find((r) => r.type === 'login.failed' && r.created_at === old)).toMatchObject({
      actor: w.admin.email,
      ip: '203.0.113.9',
      details: {},
    });
    expect(rows.find((r) => r.type === 'cardholder.erasure_requested')).toMatchObject({
      actor: 'API key plo_live_…abcd (desk)',
      details: {
        erasure_id: '6a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
        requested_by: 'API key plo_live_…abcd (desk)',
      },
    });
    const [copied] = await db.query(
      `SELECT actor_type, actor_email, resource_type FROM audit_log
        WHERE action = 'login.failed' AND institution_id = $1 AND created_at = $2`,
      [w.institution.id, old],
    );
    expect(copied).toEqual({
      actor_type: 'staff',
      actor_email: w.admin.email,
      resource_type: 'portal_user',
    });
    expect(login.id).toBeDefined();
    expect(await verifyAuditChain(db)).toEqual({ checked: expect.any(Number), problem: null });
  });
});
