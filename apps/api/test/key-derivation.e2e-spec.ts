import { createHmac } from 'crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppConfig, KeyRing, LEGACY_MAC_GRACE_MS } from '@app/config';
import { decryptSecret, encryptWithKey } from '@app/core';
import { CursorKey, encodeCursor } from '@app/domain';
import { createWorld, startApi, TestApi, uniq, World } from '@app/testing';
import { reencrypt } from '../../cli/src/reencrypt.command';

/**
 * The upgrade to per-purpose keys (docs/operations.md, "Keys"): what the previous release stored
 * or handed out under SECRETS_KEY itself still works after it.
 */
describe('keys derived per purpose: the upgrade from SECRETS_KEY itself', () => {
  let api: TestApi;
  let db: DataSource;
  let keys: KeyRing;
  const op = () => `Bearer ${api.operatorToken}`;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    keys = api.app.get(AppConfig).keys;
  });
  afterAll(() => api.close());

  it('a webhook secret encrypted by the previous release decrypts after the upgrade; reencrypt moves it to the derived key', async () => {
    const world: World = await createWorld(api, { merchants: [{}] });
    const secret = `whsec_${uniq()}`;
    const previous = encryptWithKey(secret, keys.legacy); // what the previous release stored
    await db.query(`UPDATE institution SET webhook_secret_encrypted = $2 WHERE id = $1`, [
      world.institution.id,
      previous,
    ]);
    const signedPost = () => {
      const raw = JSON.stringify({
        cardholder_token: `chk_${uniq()}`,
        card_token: `ctk_${uniq()}`,
        merchant_identifier: world.merchants[0].identifiers[0].value,
        merchant_identifier_type: 'card_acceptor',
        amount: 25,
        transaction_ref: uniq('ref-'),
        transacted_at: new Date().toISOString(),
      });
      return api.http
        .post('/api/v1/transactions')
        .set('Authorization', world.auth)
        .set('Content-Type', 'application/json')
        .set('X-Service-Signature', createHmac('sha256', secret).update(raw).digest('hex'))
        .send(raw);
    };
    // The api verifies the signature with the secret it decrypted: the old value opens.
    await signedPost().expect(202);

    await reencrypt();
    const [row] = await db.query(
      `SELECT webhook_secret_encrypted AS v FROM institution WHERE id = $1`,
      [world.institution.id],
    );
    expect(row.v).not.toBe(previous);
    const derivedOnly = { secretDecryptors: [keys.secretsEncryption] } as KeyRing;
    expect(decryptSecret(row.v, derivedOnly)).toBe(secret);
    const [mark] = await db.query(`SELECT reencrypted_at FROM key_derivation`);
    expect(mark.reencrypted_at).toBeInstanceOf(Date);
    await signedPost().expect(202);
  });

  describe('cursors and CSRF tokens MACed with SECRETS_KEY itself', () => {
    /** A cursor of the admin institutions list as the previous release made it. */
    async function previousReleaseCursor(): Promise<string> {
      await createWorld(api);
      await createWorld(api);
      const page = await api.http
        .get('/admin/api/v1/institutions?limit=1')
        .set('Authorization', op())
        .expect(200);
      const cursor: string = page.body.pagination.next_cursor;
      const key = JSON.parse(
        Buffer.from(cursor.split('.')[0], 'base64url').toString(),
      ) as CursorKey;
      return encodeCursor(keys.legacy, 'admin:institutions', key);
    }

    /** The session cookie's token and the CSRF token the previous release derived from it. */
    async function previousReleaseCsrf() {
      const world = await createWorld(api);
      const agent = request.agent(api.app.getHttpServer());
      const login = await agent.post('/portal/api/auth/login').send(world.admin).expect(200);
      const cookie = String(login.headers['set-cookie']).match(/plo_session=([^;]+)/)![1];
      const token = decodeURIComponent(cookie);
      const legacy = createHmac('sha256', keys.legacy).update(`csrf:${token}`).digest('base64url');
      expect(legacy).not.toBe(login.body.csrf_token);
      return { agent, legacy };
    }

    it('are accepted within 24 h of the upgrade', async () => {
      const cursor = await previousReleaseCursor();
      await api.http
        .get(`/admin/api/v1/institutions?limit=1&cursor=${encodeURIComponent(cursor)}`)
        .set('Authorization', op())
        .expect(200);
      const { agent, legacy } = await previousReleaseCsrf();
      await agent.post('/portal/api/auth/logout').set('X-CSRF-Token', legacy).expect(204);
    });

    it('are refused once 24 h have passed since the upgrade (recorded by the migration)', async () => {
      const [{ upgraded_at }] = await db.query(`SELECT upgraded_at FROM key_derivation`);
      await db.query(`UPDATE key_derivation SET upgraded_at = $1`, [
        new Date(Date.now() - LEGACY_MAC_GRACE_MS - 60_000),
      ]);
      const later = await startApi(); // reads the moment at start
      try {
        const cursor = await previousReleaseCursor();
        const res = await later.http
          .get(`/admin/api/v1/institutions?limit=1&cursor=${encodeURIComponent(cursor)}`)
          .set('Authorization', op())
          .expect(400);
        expect(res.body.details).toEqual([{ field: 'cursor', message: expect.any(String) }]);
        const world = await createWorld(later);
        const agent = request.agent(later.app.getHttpServer());
        const login = await agent.post('/portal/api/auth/login').send(world.admin).expect(200);
        const token = decodeURIComponent(
          String(login.headers['set-cookie']).match(/plo_session=([^;]+)/)![1],
        );
        const old = createHmac('sha256', keys.legacy).update(`csrf:${token}`).digest('base64url');
        await agent.post('/portal/api/auth/logout').set('X-CSRF-Token', old).expect(403);
        await agent
          .post('/portal/api/auth/logout')
          .set('X-CSRF-Token', login.body.csrf_token)
          .expect(204);
      } finally {
        await later.close();
        await db.query(`UPDATE key_derivation SET upgraded_at = $1`, [upgraded_at]);
      }
    });
  });
});
