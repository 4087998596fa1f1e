import { createHmac, randomUUID } from 'crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { encryptSecret } from '@app/core';
import { createWorld, startApi, TestApi, uniq, World } from '@app/testing';

/** A valid event of the current shape at the world's first merchant. */
function event(world: World, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    cardholder_token: `chk_${uniq()}`,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: world.merchants[0].identifiers[0].value,
    merchant_identifier_type: 'card_acceptor',
    amount: 25,
    transaction_ref: uniq('ref-'),
    transacted_at: new Date().toISOString(),
    ...overrides,
  };
}

describe('transaction ingestion (POST /api/v1/transactions, /batch, /simulate)', () => {
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

  const post = (body: unknown, auth = world.auth) =>
    api.http
      .post('/api/v1/transactions')
      .set('Authorization', auth)
      .send(body as object);
  const row = async (id: string) =>
    (await db.query(`SELECT * FROM transaction WHERE id = $1`, [id]))[0];

  describe('single', () => {
    it('202 accepted with the new id; the row is committed before the answer', async () => {
      const body = event(world, {
        mcc: '5411',
        network: 'visa',
        merchant_descriptor: 'GROCER #1',
        instrument_type: 'card',
      });
      const res = await post(body).expect(202);
      expect(res.body).toEqual({
        id: expect.any(String),
        transaction_ref: body.transaction_ref,
        status: 'accepted',
      });
      const r = await row(res.body.id);
      expect(r).toMatchObject({
        institution_id: world.institution.id,
        transaction_ref: body.transaction_ref,
        cardholder_token: body.cardholder_token,
        instrument_token: body.card_token,
        instrument_type: 'card',
        merchant_identifier: body.merchant_identifier,
        merchant_identifier_type: 'card_acceptor',
        mcc: '5411',
        network: 'visa',
        merchant_descriptor: 'GROCER #1',
        amount: '25.0000',
        currency: null,
        source: 'api',
        kind: 'purchase',
        original_transaction_ref: null,
      });
      expect(r.transacted_at.toISOString()).toBe(
        new Date(body.transacted_at as string).toISOString(),
      );
    });

    it('200 duplicate with the original id for a repeated transaction_ref; first write wins', async () => {
      const body = event(world);
      const first = await post(body).expect(202);
      const again = await post({ ...body, amount: 99 }).expect(200);
      expect(again.body).toEqual({
        id: first.body.id,
        transaction_ref: body.transaction_ref,
        status: 'duplicate',
      });
      expect((await row(first.body.id)).amount).toBe('25.0000');
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
        [world.institution.id, body.transaction_ref],
      );
      expect(n).toBe(1);
    });

    it('the same transaction_ref under another institution is a different transaction', async () => {
      const other = await createWorld(api, { merchants: [{}] });
      const body = event(world);
      await post(body).expect(202);
      await post(
        { ...body, merchant_identifier: other.merchants[0].identifiers[0].value },
        other.auth,
      ).expect(202);
    });

    it('accepts the earlier shape (transaction_id, timestamp, merchant_id, currency) through the same path', async () => {
      const ref = uniq('legacy-');
      const res = await post({
        cardholder_token: `chk_${uniq()}`,
        card_token: `ctk_${uniq()}`,
        merchant_id: world.merchants[0].id,
        amount: 12.34,
        currency: 'USD',
        timestamp: '2026-01-02T03:04:05+01:00',
        transaction_id: ref,
      }).expect(202);
      expect(res.body).toMatchObject({ transaction_ref: ref, status: 'accepted' });
      // Still accepted, but the answer says the shape is deprecated and where the policy is.
      expect(res.headers.deprecation).toBe('@1795392000');
      expect(res.headers.link).toBe('</docs/versioning>; rel="deprecation"; type="text/markdown"');
      // The link leads to the policy, which names this shape.
      const policy = await api.http.get('/docs/versioning').expect(200);
      expect(policy.headers['content-type']).toMatch(/^text\/markdown/);
      expect(policy.text).toContain('# Versioning and deprecation');
      expect(policy.text).toContain('the earlier transaction payload shape');
      const r = await row(res.body.id);
      expect(r).toMatchObject({
        transaction_ref: ref,
        merchant_id: world.merchants[0].id,
        currency: 'USD',
        amount: '12.3400',
        merchant_identifier: null,
      });
      expect(r.transacted_at.toISOString()).toBe('2026-01-02T02:04:05.000Z');
      // A current-shape post of the same reference is its duplicate.
      const dup = await post(event(world, { transaction_ref: ref })).expect(200);
      expect(dup.body).toMatchObject({ id: res.body.id, status: 'duplicate' });
      expect(dup.headers.deprecation).toBeUndefined();
    });

    it('card_acceptor_id is stored as a card_acceptor merchant_identifier; instrument_token works without card_token', async () => {
      const body = event(world, {
        card_acceptor_id: 'CA-legacy-1',
        instrument_token: 'wallet-1',
        instrument_type: 'wallet',
      });
      delete body.merchant_identifier;
      delete body.merchant_identifier_type;
      delete body.card_token;
      const res = await post(body).expect(202);
      expect(await row(res.body.id)).toMatchObject({
        merchant_identifier: 'CA-legacy-1',
        merchant_identifier_type: 'card_acceptor',
        instrument_token: 'wallet-1',
        instrument_type: 'wallet',
      });
    });

    it('stores a refund with its original_transaction_ref', async () => {
      const res = await post(
        event(world, { transaction_type: 'refund', original_transaction_ref: 'ref-original' }),
      ).expect(202);
      expect(await row(res.body.id)).toMatchObject({
        kind: 'refund',
        original_transaction_ref: 'ref-original',
      });
    });

    it('an unresolvable merchant is accepted, not rejected', async () => {
      await post(event(world, { merchant_identifier: uniq('nobody-') })).expect(202);
    });

    it.each([
      [
        'cardholder_token missing',
        (b: Record<string, unknown>) => delete b.cardholder_token,
        [{ field: 'cardholder_token', message: 'is required' }],
      ],
      [
        'no card_token nor instrument_token',
        (b: Record<string, unknown>) => delete b.card_token,
        [
          {
            field: 'instrument_token',
            message: 'one of card_token or instrument_token is required',
          },
        ],
      ],
      [
        'no merchant at all',
        (b: Record<string, unknown>) => (
          delete b.merchant_identifier,
          delete b.merchant_identifier_type
        ),
        [
          {
            field: 'merchant_identifier',
            message: 'one of merchant_identifier, card_acceptor_id or merchant_id is required',
          },
        ],
      ],
      [
        'instrument_type outside the enum',
        (b: Record<string, unknown>) => (b.instrument_type = 'crypto'),
        [{ field: 'instrument_type', message: 'must be one of: card, wallet, account' }],
      ],
      [
        'merchant_identifier_type outside the enum',
        (b: Record<string, unknown>) => (b.merchant_identifier_type = 'iban'),
        [{ field: 'merchant_identifier_type', message: expect.stringMatching(/^must be one of/) }],
      ],
      [
        'amount zero',
        (b: Record<string, unknown>) => (b.amount = 0),
        [{ field: 'amount', message: expect.stringMatching(/positive number/) }],
      ],
      [
        'amount as a string',
        (b: Record<string, unknown>) => (b.amount = '25'),
        [{ field: 'amount', message: expect.stringMatching(/positive number/) }],
      ],
      [
        'transacted_at not ISO 8601',
        (b: Record<string, unknown>) => (b.transacted_at = '21/11/2026 10:00'),
        [{ field: 'transacted_at', message: expect.stringMatching(/ISO 8601/) }],
      ],
      [
        'transaction_ref missing',
        (b: Record<string, unknown>) => delete b.transaction_ref,
        [{ field: 'transaction_ref', message: 'is required' }],
      ],
      [
        'transaction_type outside the enum',
        (b: Record<string, unknown>) => (b.transaction_type = 'chargeback'),
        [
          {
            field: 'transaction_type',
            message:
              'must be one of: purchase, refund, authorization, clearing, authorization_reversal',
          },
        ],
      ],
      [
        'a refund without original_transaction_ref',
        (b: Record<string, unknown>) => (b.transaction_type = 'refund'),
        [
          {
            field: 'original_transaction_ref',
            message: 'is required when transaction_type is refund',
          },
        ],
      ],
      [
        'an unknown field',
        (b: Record<string, unknown>) => (b.email = 'x'),
        [{ field: 'email', message: 'is not an accepted field' }],
      ],
      ...(['ZZZ', 'XAU', 'XXX'].map((code) => [
        `currency ${code} (not an active ISO 4217 currency that is money)`,
        (b: Record<string, unknown>) => (b.currency = code),
        [{ field: 'currency', message: 'must be an active ISO 4217 currency code such as USD' }],
      ]) as [string, (b: Record<string, unknown>) => void, unknown[]][]),
    ])('400 validation_failed: %s', async (_, mutate, details) => {
      const body = event(world);
      mutate(body);
      const res = await post(body).expect(400);
      expect(res.body).toEqual({
        error: 'validation_failed',
        message: expect.any(String),
        details,
        request_id: res.headers['x-request-id'],
      });
    });

    it('400 validation_failed lists every bad field', async () => {
      const res = await post({ amount: -1 }).expect(400);
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(
        [
          'amount',
          'cardholder_token',
          'instrument_token',
          'merchant_identifier',
          'transacted_at',
          'transaction_ref',
        ].sort(),
      );
    });

    it('400 invalid_json for a body that is not JSON', async () => {
      const res = await api.http
        .post('/api/v1/transactions')
        .set('Authorization', world.auth)
        .set('Content-Type', 'application/json')
        .send('{"amount": ')
        .expect(400);
      expect(res.body.error).toBe('invalid_json');
    });

    it('400 pii_rejected for an e-mail or a card number where a token belongs; nothing stored', async () => {
      for (const [field, value] of [
        ['cardholder_token', 'jane.doe@example.com'],
        ['card_token', '4111 1111 1111 1111'],
        ['instrument_token', '5500-0000-0000-0004'],
        // A valid card number behind dots or a prefix.
        ['card_token', '4000.0000.0000.0002'],
        ['cardholder_token', 'chk_4000000000000002'],
      ]) {
        const body = event(world, { [field]: value });
        if (field === 'instrument_token') delete body.card_token;
        const res = await post(body).expect(400);
        expect(res.body).toMatchObject({
          error: 'pii_rejected',
          details: [{ field, message: expect.stringMatching(/^pii_rejected/) }],
        });
        expect(
          await db.query(`SELECT 1 FROM transaction WHERE transaction_ref = $1`, [
            body.transaction_ref,
          ]),
        ).toEqual([]);
      }
    });

    it('403 institution_mismatch for another institution’s id; the key’s own id is fine', async () => {
      const res = await post(event(world, { institution_id: randomUUID() })).expect(403);
      expect(res.body.error).toBe('institution_mismatch');
      await post(event(world, { institution_id: world.institution.id })).expect(202);
      // The mismatch wins over other field errors in the same body.
      const mixed = await post(event(world, { institution_id: randomUUID(), amount: -1 })).expect(
        403,
      );
      expect(mixed.body.error).toBe('institution_mismatch');
    });

    it('403 insufficient_scope without the transactions scope', async () => {
      const w = await createWorld(api, { scopes: ['offers'] });
      const res = await post(event(world), w.auth).expect(403);
      expect(res.body.error).toBe('insufficient_scope');
    });
  });

  describe('X-Service-Signature', () => {
    let signed: World;
    const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

    beforeAll(async () => {
      signed = await createWorld(api, { merchants: [{}] });
      await db.query(`UPDATE institution SET webhook_secret_encrypted = $2 WHERE id = $1`, [
        signed.institution.id,
        encryptSecret(secret, api.app.get(AppConfig).keys),
      ]);
    });

    const sendSigned = (raw: string, signature: string, path = '/api/v1/transactions') =>
      api.http
        .post(path)
        .set('Authorization', signed.auth)
        .set('Content-Type', 'application/json')
        .set('X-Service-Signature', signature)
        .send(raw);

    it('accepts the hex HMAC-SHA256 of the raw body (also with a sha256= prefix)', async () => {
      const raw = JSON.stringify(event(signed));
      await sendSigned(raw, createHmac('sha256', secret).update(raw).digest('hex')).expect(202);
      const raw2 = JSON.stringify(event(signed));
      await sendSigned(
        raw2,
        `sha256=${createHmac('sha256', secret).update(raw2).digest('hex')}`,
      ).expect(202);
    });

    it('verifies the exact bytes: re-serialized JSON with the same content does not pass', async () => {
      const body = event(signed);
      const raw = JSON.stringify(body, null, 2);
      const sig = createHmac('sha256', secret).update(JSON.stringify(body)).digest('hex');
      const res = await sendSigned(raw, sig).expect(401);
      expect(res.body.error).toBe('invalid_signature');
    });

    it('401 invalid_signature for a wrong or malformed signature, and on the batch endpoint too; nothing stored', async () => {
      const body = event(signed);
      const raw = JSON.stringify(body);
      for (const sig of [createHmac('sha256', 'wrong').update(raw).digest('hex'), 'not-hex', '']) {
        const res = await sendSigned(raw, sig).expect(401);
        expect(res.body.error).toBe('invalid_signature');
      }
      const batch = JSON.stringify({ transactions: [body] });
      expect(
        (
          await sendSigned(
            batch,
            createHmac('sha256', 'wrong').update(batch).digest('hex'),
            '/api/v1/transactions/batch',
          ).expect(401)
        ).body.error,
      ).toBe('invalid_signature');
      await sendSigned(
        batch,
        createHmac('sha256', secret).update(batch).digest('hex'),
        '/api/v1/transactions/batch',
      ).expect(202);
      expect(
        await db.query(`SELECT 1 FROM transaction WHERE transaction_ref = $1`, [
          body.transaction_ref,
        ]),
      ).toHaveLength(1);
    });

    it('401 when the header is sent but the institution has no signing secret', async () => {
      const raw = JSON.stringify(event(world));
      const res = await api.http
        .post('/api/v1/transactions')
        .set('Authorization', world.auth)
        .set('Content-Type', 'application/json')
        .set('X-Service-Signature', createHmac('sha256', 'x').update(raw).digest('hex'))
        .send(raw)
        .expect(401);
      expect(res.body.error).toBe('invalid_signature');
    });

    it('without the header the Bearer key alone is enough', async () => {
      await api.http
        .post('/api/v1/transactions')
        .set('Authorization', signed.auth)
        .send(event(signed))
        .expect(202);
    });
  });

  describe('batch', () => {
    const batch = (transactions: unknown, auth = world.auth) =>
      api.http.post('/api/v1/transactions/batch').set('Authorization', auth).send({ transactions });

    it('mixes valid, invalid, stored duplicates and duplicates inside the batch, reported by index', async () => {
      const stored = event(world);
      await post(stored).expect(202);
      const a = event(world);
      const b = event(world, {
        merchant_identifier: 'upi@merchant',
        merchant_identifier_type: 'upi_vpa',
      });
      const items = [
        a, // 0 accepted
        { ...stored }, // 1 duplicate of a stored row
        event(world, { amount: -5 }), // 2 invalid
        { ...a, amount: 1 }, // 3 duplicate of item 0
        b, // 4 accepted
        event(world, { institution_id: randomUUID() }), // 5 invalid: institution_mismatch
        event(world, { cardholder_token: 'me@example.com' }), // 6 invalid: pii
        'not an object', // 7 invalid
      ];
      const res = await batch(items).expect(202);
      expect(res.body).toEqual({
        received: 8,
        accepted: 2,
        duplicates: 2,
        duplicate_indexes: [1, 3],
        invalid: [
          {
            index: 2,
            errors: [{ field: 'amount', message: expect.stringMatching(/positive number/) }],
          },
          {
            index: 5,
            errors: [
              { field: 'institution_id', message: expect.stringMatching(/^institution_mismatch/) },
            ],
          },
          {
            index: 6,
            errors: [
              { field: 'cardholder_token', message: expect.stringMatching(/^pii_rejected/) },
            ],
          },
          { index: 7, errors: [{ field: 'body', message: 'must be a JSON object' }] },
        ],
      });
      const rows = await db.query(
        `SELECT transaction_ref, source, amount FROM transaction WHERE institution_id = $1 AND transaction_ref = ANY($2) ORDER BY transaction_ref`,
        [world.institution.id, [a.transaction_ref, b.transaction_ref]],
      );
      expect(rows).toHaveLength(2);
      expect(rows.every((r: { source: string }) => r.source === 'batch')).toBe(true);
      // First occurrence wins inside the batch.
      expect(
        rows.find((r: { transaction_ref: string }) => r.transaction_ref === a.transaction_ref)
          .amount,
      ).toBe('25.0000');
    });

    it('accepts exactly 1,000 items in one request', async () => {
      const items = Array.from({ length: 1000 }, () => event(world));
      const res = await batch(items).expect(202);
      expect(res.body).toMatchObject({
        received: 1000,
        accepted: 1000,
        duplicates: 0,
        invalid: [],
      });
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM transaction WHERE institution_id = $1 AND transaction_ref = ANY($2)`,
        [world.institution.id, items.map((i) => i.transaction_ref)],
      );
      expect(n).toBe(1000);
      // Replayed: all duplicates.
      const again = await batch(items).expect(202);
      expect(again.body).toMatchObject({ accepted: 0, duplicates: 1000 });
    });

    it.each([
      ['an empty array', []],
      ['1,001 items', 'many'],
      ['no array', { a: 1 }],
    ])('400 validation_failed for %s', async (_, transactions) => {
      const items =
        transactions === 'many' ? Array.from({ length: 1001 }, () => event(world)) : transactions;
      const res = await batch(items).expect(400);
      expect(res.body).toMatchObject({
        error: 'validation_failed',
        details: [
          { field: 'transactions', message: 'must be an array of 1 to 1,000 transaction events' },
        ],
      });
    });

    it('413 payload_too_large over 2 MiB (1 MiB for a single event)', async () => {
      const big = Array.from({ length: 1000 }, () =>
        event(world, { merchant_descriptor: 'x'.repeat(2200) }),
      );
      expect(Buffer.byteLength(JSON.stringify({ transactions: big }))).toBeGreaterThan(
        2 * 1024 * 1024,
      );
      expect((await batch(big).expect(413)).body.error).toBe('payload_too_large');
      const res = await post({
        ...event(world),
        merchant_descriptor: 'z'.repeat(1024 * 1024),
      }).expect(413);
      expect(res.body.error).toBe('payload_too_large');
    });

    it('400 for unknown top-level fields', async () => {
      const res = await api.http
        .post('/api/v1/transactions/batch')
        .set('Authorization', world.auth)
        .send({ transactions: [event(world)], extra: 1 })
        .expect(400);
      expect(res.body.details).toEqual([{ field: 'extra', message: 'is not an accepted field' }]);
    });
  });

  describe('simulate', () => {
    const simulate = (body: unknown, auth = world.auth) =>
      api.http
        .post('/api/v1/transactions/simulate')
        .set('Authorization', auth)
        .send(body as object);

    async function counts() {
      const [r] = await db.query(`
        SELECT (SELECT count(*) FROM transaction)::int AS transactions, (SELECT count(*) FROM redemption)::int AS redemptions,
               (SELECT count(*) FROM settlement_entry)::int AS entries, (SELECT count(*) FROM webhook_delivery)::int AS deliveries,
               (SELECT COALESCE(sum(budget_used), 0)::text FROM offer_budget) AS budget,
               (SELECT COALESCE(sum(redemption_count), 0)::int FROM cardholder_offer) AS redemption_counts,
               (SELECT count(*) FROM cardholder_offer WHERE status <> 'active')::int AS inactive`);
      return r;
    }

    it('explains a match and a no-match with reasons, and writes nothing', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [
          { min_spend: 20, cashback_amount: 5, budget_total: 100 },
          { min_spend: 50, cashback_amount: 9 },
          { min_spend: 10, cashback_amount: 2 },
        ],
      });
      const token = `chk_${uniq()}`;
      for (const o of w.offers.slice(0, 2)) {
        await api.http
          .post(`/api/v1/offers/${o.id}/add`)
          .set('Authorization', w.auth)
          .send({ cardholder_token: token })
          .expect(201);
      }
      const body = event(w, {
        cardholder_token: token,
        transacted_at: new Date(Date.now() + 1000).toISOString(),
      });
      const before = await counts();
      const res = await simulate(body).set('Authorization', w.auth).expect(200);
      expect(await counts()).toEqual(before);
      expect(res.body).toMatchObject({
        matched: true,
        merchant: { id: w.merchants[0].id, name: w.merchants[0].name },
        duplicate: false,
      });
      const byOffer = Object.fromEntries(
        res.body.evaluations.map((e: { offer_id: string }) => [e.offer_id, e]),
      );
      expect(byOffer[w.offers[0].id]).toMatchObject({
        outcome: 'match',
        reasons: [],
        cardholder_offer_id: expect.any(String),
        cashback_amount: 5,
        institution_payout_amount: 5,
        currency: 'USD',
      });
      expect(byOffer[w.offers[1].id]).toMatchObject({
        outcome: 'no_match',
        reasons: ['below_min_spend'],
      });
      expect(byOffer[w.offers[2].id]).toMatchObject({
        outcome: 'no_match',
        reasons: ['not_enrolled'],
        cardholder_offer_id: null,
      });
      // Nothing was stored: a real post of the same reference is new.
      expect(
        await db.query(`SELECT 1 FROM transaction WHERE transaction_ref = $1`, [
          body.transaction_ref,
        ]),
      ).toEqual([]);
    });

    it('tells enrolled_after_purchase, currency_mismatch and outside_offer_window', async () => {
      const w = await createWorld(api, {
        merchants: [{}],
        offers: [{ min_spend: 20, cashback_amount: 5 }],
      });
      const token = `chk_${uniq()}`;
      await api.http
        .post(`/api/v1/offers/${w.offers[0].id}/add`)
        .set('Authorization', w.auth)
        .send({ cardholder_token: token })
        .expect(201);
      const res = await simulate(
        event(w, {
          cardholder_token: token,
          currency: 'EUR',
          transacted_at: new Date(Date.now() - 3 * 86_400_000).toISOString(),
        }),
        w.auth,
      ).expect(200);
      expect(res.body.matched).toBe(false);
      expect(res.body.evaluations[0].reasons).toEqual([
        'enrolled_after_purchase',
        'outside_offer_window',
        'currency_mismatch',
      ]);
    });

    it('duplicate true for a stored reference; merchant null when unresolved', async () => {
      const stored = event(world);
      await post(stored).expect(202);
      expect((await simulate(stored).expect(200)).body.duplicate).toBe(true);
      const res = await simulate(event(world, { merchant_identifier: uniq('nobody-') })).expect(
        200,
      );
      expect(res.body).toMatchObject({ matched: false, merchant: null, duplicate: false });
    });

    it('validates like the single endpoint', async () => {
      expect((await simulate({ amount: 1 }).expect(400)).body.error).toBe('validation_failed');
      expect(
        (await simulate(event(world, { cardholder_token: 'a@b.c' })).expect(400)).body.error,
      ).toBe('pii_rejected');
      expect(
        (await simulate(event(world, { institution_id: randomUUID() })).expect(403)).body.error,
      ).toBe('institution_mismatch');
    });
  });

  describe('POST /api/v1/merchants/resolve', () => {
    const resolve = (identifiers: unknown, auth = world.auth) =>
      api.http.post('/api/v1/merchants/resolve').set('Authorization', auth).send({ identifiers });

    it('resolves all five identifier types and the card_acceptor_id alias, in order; unknown → null', async () => {
      const types = ['card_acceptor', 'pix_key', 'upi_vpa', 'codi', 'psp_merchant_id'];
      const identifiers = types.map((type) => ({ type, value: uniq(`${type}-`) }));
      const w = await createWorld(api, { merchants: [{ name: uniq('Multi '), identifiers }] });
      const m = w.merchants[0];
      const res = await resolve([
        ...identifiers.map((i) => ({
          merchant_identifier: i.value,
          merchant_identifier_type: i.type,
        })),
        { card_acceptor_id: identifiers[0].value },
        { merchant_identifier: identifiers[0].value },
        { merchant_identifier: identifiers[1].value, merchant_identifier_type: 'upi_vpa' },
        { merchant_identifier: 'nobody', merchant_identifier_type: 'codi' },
      ]).expect(200);
      expect(res.body.results).toEqual([
        ...identifiers.map((i, index) => ({
          index,
          merchant_identifier: i.value,
          merchant_identifier_type: i.type,
          merchant_id: m.id,
          merchant_name: m.name,
        })),
        {
          index: 5,
          merchant_identifier: identifiers[0].value,
          merchant_identifier_type: 'card_acceptor',
          merchant_id: m.id,
          merchant_name: m.name,
        },
        {
          index: 6,
          merchant_identifier: identifiers[0].value,
          merchant_identifier_type: 'card_acceptor',
          merchant_id: m.id,
          merchant_name: m.name,
        },
        {
          index: 7,
          merchant_identifier: identifiers[1].value,
          merchant_identifier_type: 'upi_vpa',
          merchant_id: null,
          merchant_name: null,
        },
        {
          index: 8,
          merchant_identifier: 'nobody',
          merchant_identifier_type: 'codi',
          merchant_id: null,
          merchant_name: null,
        },
      ]);
    });

    it('takes 1 to 1,000 identifiers, each with an identifier', async () => {
      await resolve(
        Array.from({ length: 1000 }, (_, i) => ({ card_acceptor_id: `x-${i}` })),
      ).expect(200);
      expect((await resolve([]).expect(400)).body.error).toBe('validation_failed');
      expect(
        (await resolve(Array.from({ length: 1001 }, () => ({ card_acceptor_id: 'x' }))).expect(400))
          .body.error,
      ).toBe('validation_failed');
      const res = await resolve([{ merchant_identifier_type: 'pix_key' }]).expect(400);
      expect(res.body.details).toEqual([
        {
          field: 'identifiers[0].merchant_identifier',
          message: 'one of merchant_identifier or card_acceptor_id is required',
        },
      ]);
      expect(
        (
          await resolve([{ merchant_identifier: 'a', merchant_identifier_type: 'iban' }]).expect(
            400,
          )
        ).body.details[0].field,
      ).toBe('identifiers[0].merchant_identifier_type');
    });
  });
});
