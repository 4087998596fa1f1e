import { parseTransactionEvent, TransactionEvent } from './transaction-event';

const INST = '0b9e8d4c-1f2a-4b3c-8d4e-5f6a7b8c9d0e';
const NOW = Date.parse('2026-11-21T12:00:00Z');

const current = {
  institution_id: INST,
  cardholder_token: 'chk_4f9a2b7c1d',
  card_token: 'ctk_99aa11',
  instrument_type: 'card',
  merchant_identifier: '000123456789012',
  merchant_identifier_type: 'card_acceptor',
  mcc: '5411',
  merchant_descriptor: 'GROCER #12',
  network: 'visa',
  amount: 25.5,
  transaction_ref: 'ref-1',
  transacted_at: '2026-11-21T10:00:00Z',
};

const parse = (body: unknown) => parseTransactionEvent(body, { institutionId: INST, now: NOW });
const ok = (body: unknown): TransactionEvent => {
  const r = parse(body);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.event;
};
const errors = (body: unknown) => {
  const r = parse(body);
  if (r.ok) throw new Error('expected errors');
  return r.errors;
};
const without = (o: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

describe('parseTransactionEvent', () => {
  it('normalizes the current shape', () => {
    expect(ok(current)).toEqual({
      institutionId: INST,
      cardholderToken: 'chk_4f9a2b7c1d',
      instrumentToken: 'ctk_99aa11',
      instrumentType: 'card',
      merchantIdentifier: '000123456789012',
      merchantIdentifierType: 'card_acceptor',
      merchantId: null,
      mcc: '5411',
      merchantDescriptor: 'GROCER #12',
      network: 'visa',
      amount: '25.5',
      currency: null,
      transactionRef: 'ref-1',
      transactedAt: '2026-11-21T10:00:00.000Z',
      kind: 'purchase',
      originalTransactionRef: null,
    });
  });

  it('normalizes the earlier shape to the same fields', () => {
    const merchantId = '7d1f0c2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';
    expect(
      ok({
        cardholder_token: 'chk_4f9a2b7c1d',
        card_token: 'ctk_99aa11',
        merchant_id: merchantId,
        amount: 12,
        currency: 'USD',
        timestamp: '2026-11-21T09:00:00+01:00',
        transaction_id: 'legacy-1',
      }),
    ).toMatchObject({
      transactionRef: 'legacy-1',
      transactedAt: '2026-11-21T08:00:00.000Z',
      merchantId,
      merchantIdentifier: null,
      merchantIdentifierType: null,
      currency: 'USD',
      amount: '12',
      instrumentToken: 'ctk_99aa11',
      instrumentType: 'card',
    });
  });

  it('card_acceptor_id is an alias of merchant_identifier of type card_acceptor', () => {
    const e = ok({
      ...without(current, 'merchant_identifier', 'merchant_identifier_type'),
      card_acceptor_id: 'CA-1',
    });
    expect(e).toMatchObject({
      merchantIdentifier: 'CA-1',
      merchantIdentifierType: 'card_acceptor',
    });
  });

  it.each(['card_acceptor', 'pix_key', 'upi_vpa', 'codi', 'psp_merchant_id'])(
    'accepts merchant_identifier_type %s',
    (type) => {
      expect(ok({ ...current, merchant_identifier_type: type }).merchantIdentifierType).toBe(type);
    },
  );

  it('merchant_identifier_type defaults to card_acceptor', () => {
    expect(ok(without(current, 'merchant_identifier_type')).merchantIdentifierType).toBe(
      'card_acceptor',
    );
  });

  it('instrument_token works without card_token; instrument_type is then not assumed', () => {
    const e = ok({
      ...without(current, 'card_token', 'instrument_type'),
      instrument_token: 'wallet-tok-1',
    });
    expect(e).toMatchObject({ instrumentToken: 'wallet-tok-1', instrumentType: null });
  });

  it('treats null optional fields as absent', () => {
    expect(
      ok({ ...current, mcc: null, network: null, institution_id: null }).institutionId,
    ).toBeNull();
  });

  it('channel: in_store or online, optional', () => {
    expect(ok({ ...current, channel: 'online' }).channel).toBe('online');
    expect(ok(current).channel).toBeUndefined();
    expect(errors({ ...current, channel: 'phone' })).toEqual([
      { field: 'channel', message: 'must be one of: in_store, online' },
    ]);
  });

  it('card lifecycle: clearing and authorization_reversal name their authorization', () => {
    expect(ok({ ...current, transaction_type: 'authorization' })).toMatchObject({
      kind: 'authorization',
      originalTransactionRef: null,
    });
    expect(
      ok({ ...current, transaction_type: 'clearing', original_transaction_ref: 'auth-1' }),
    ).toMatchObject({ kind: 'clearing', originalTransactionRef: 'auth-1' });
    expect(
      ok({
        ...current,
        transaction_type: 'authorization_reversal',
        original_transaction_ref: 'auth-1',
      }),
    ).toMatchObject({ kind: 'authorization_reversal', originalTransactionRef: 'auth-1' });
  });

  it('a clearing without original_transaction_ref is a purchase', () => {
    expect(ok({ ...current, transaction_type: 'clearing' })).toMatchObject({
      kind: 'purchase',
      originalTransactionRef: null,
    });
  });

  it('a void needs its authorization; an authorization names none', () => {
    expect(errors({ ...current, transaction_type: 'authorization_reversal' })).toEqual([
      {
        field: 'original_transaction_ref',
        message: 'is required when transaction_type is authorization_reversal',
      },
    ]);
    expect(
      errors({ ...current, transaction_type: 'authorization', original_transaction_ref: 'a' }),
    ).toEqual([
      {
        field: 'original_transaction_ref',
        message:
          'is only allowed when transaction_type is refund, clearing or authorization_reversal',
      },
    ]);
    expect(
      errors({ ...current, transaction_type: 'clearing', original_transaction_ref: 'ref-1' })[0]
        .message,
    ).toMatch(/differ/);
  });

  it('refunds need original_transaction_ref', () => {
    expect(
      ok({ ...current, transaction_type: 'refund', original_transaction_ref: 'ref-0' }),
    ).toMatchObject({
      kind: 'refund',
      originalTransactionRef: 'ref-0',
    });
    expect(errors({ ...current, transaction_type: 'refund' })).toEqual([
      { field: 'original_transaction_ref', message: 'is required when transaction_type is refund' },
    ]);
    expect(errors({ ...current, original_transaction_ref: 'ref-0' })[0].field).toBe(
      'original_transaction_ref',
    );
    expect(
      errors({ ...current, transaction_type: 'refund', original_transaction_ref: 'ref-1' })[0]
        .message,
    ).toMatch(/differ/);
  });

  describe('per-field errors', () => {
    it.each([
      ['cardholder_token', without(current, 'cardholder_token'), 'is required'],
      ['cardholder_token', { ...current, cardholder_token: 42 }, 'must be a string'],
      ['cardholder_token', { ...current, cardholder_token: '' }, 'must be 1 to 256 characters'],
      [
        'instrument_token',
        without(current, 'card_token'),
        'one of card_token or instrument_token is required',
      ],
      ['card_token', { ...current, instrument_token: 'other' }, expect.stringMatching(/differs/)],
      [
        'instrument_type',
        { ...current, instrument_type: 'crypto' },
        'must be one of: card, wallet, account',
      ],
      [
        'merchant_identifier',
        without(current, 'merchant_identifier', 'merchant_identifier_type'),
        expect.stringMatching(/one of merchant_identifier, card_acceptor_id or merchant_id/),
      ],
      [
        'merchant_identifier_type',
        { ...current, merchant_identifier_type: 'iban' },
        expect.stringMatching(/must be one of: card_acceptor, pix_key/),
      ],
      [
        'merchant_identifier_type',
        {
          ...without(current, 'merchant_identifier'),
          merchant_id: '7d1f0c2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
        },
        expect.stringMatching(/only allowed together/),
      ],
      [
        'card_acceptor_id',
        { ...current, card_acceptor_id: 'other' },
        expect.stringMatching(/conflicts/),
      ],
      ['merchant_id', { ...current, merchant_id: 'nope' }, expect.stringMatching(/UUID/)],
      ['amount', without(current, 'amount'), 'is required'],
      ['amount', { ...current, amount: '25.50' }, expect.stringMatching(/positive number/)],
      ['amount', { ...current, amount: 0 }, expect.stringMatching(/positive number/)],
      ['amount', { ...current, amount: -3 }, expect.stringMatching(/positive number/)],
      ['amount', { ...current, amount: 1.23456 }, 'must have at most 4 decimal places'],
      [
        'amount',
        { ...current, amount: 10.5, currency: 'JPY' },
        'has more decimal places than JPY allows',
      ],
      ['currency', { ...current, currency: 'usd' }, expect.stringMatching(/ISO 4217/)],
      ['transaction_ref', without(current, 'transaction_ref'), 'is required'],
      ['transaction_id', { ...current, transaction_id: 'other' }, expect.stringMatching(/differs/)],
      ['transacted_at', without(current, 'transacted_at'), 'is required'],
      [
        'transacted_at',
        { ...current, transacted_at: '2026-11-21' },
        expect.stringMatching(/ISO 8601/),
      ],
      [
        'transacted_at',
        { ...current, transacted_at: '2026-11-21T10:00:00' },
        expect.stringMatching(/ISO 8601/),
      ],
      [
        'transacted_at',
        { ...current, transacted_at: 'yesterday' },
        expect.stringMatching(/ISO 8601/),
      ],
      [
        'transacted_at',
        { ...current, transacted_at: '2026-11-23T12:00:00Z' },
        'must not lie in the future',
      ],
      [
        'timestamp',
        { ...current, timestamp: '2026-11-21T11:00:00Z' },
        expect.stringMatching(/differs/),
      ],
      [
        'transaction_type',
        { ...current, transaction_type: 'chargeback' },
        'must be one of: purchase, refund, authorization, clearing, authorization_reversal',
      ],
      ['mcc', { ...current, mcc: '54a1' }, 'must be 4 digits'],
      ['surprise', { ...current, surprise: 1 }, 'is not an accepted field'],
      ['institution_id', { ...current, institution_id: 'abc' }, 'must be a UUID'],
    ])('%s: %j', (field, body, message) => {
      expect(errors(body)).toEqual([{ field, message }]);
    });

    it('reports every bad field at once', () => {
      expect(
        errors({ amount: 'x' })
          .map((e) => e.field)
          .sort(),
      ).toEqual(
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

    it('a body that is not an object', () => {
      expect(errors([current])).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
      expect(errors(null)).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
    });
  });

  describe('institution and PII', () => {
    it('an institution_id other than the key’s is institution_mismatch', () => {
      expect(
        errors({ ...current, institution_id: '11111111-2222-4333-8444-555555555555' }),
      ).toEqual([
        {
          field: 'institution_id',
          message: expect.stringMatching(/^institution_mismatch/),
          code: 'institution_mismatch',
        },
      ]);
      expect(ok({ ...current, institution_id: INST.toUpperCase() }).institutionId).toBe(INST);
    });

    it('rejects an e-mail as cardholder_token and card numbers as any token', () => {
      expect(errors({ ...current, cardholder_token: 'jane@example.com' })).toEqual([
        {
          field: 'cardholder_token',
          message: expect.stringMatching(/^pii_rejected: .*e-mail/),
          code: 'pii_rejected',
        },
      ]);
      expect(errors({ ...current, card_token: '4111 1111 1111 1111' })[0]).toMatchObject({
        field: 'card_token',
        code: 'pii_rejected',
      });
      expect(
        errors({ ...without(current, 'card_token'), instrument_token: '5500-0000-0000-0004' })[0],
      ).toMatchObject({
        field: 'instrument_token',
        code: 'pii_rejected',
      });
      expect(errors({ ...current, cardholder_token: '4012888888881881' })[0]).toMatchObject({
        code: 'pii_rejected',
      });
    });

    it('digits that fail Luhn are an ordinary token', () => {
      expect(ok({ ...current, card_token: '4111111111111112' }).instrumentToken).toBe(
        '4111111111111112',
      );
    });
  });
});
