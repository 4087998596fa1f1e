import {
  cardNetwork,
  containsCardNumber,
  isCardNumber,
  passesLuhn,
  piiProblem,
  piiProblems,
} from './pii';

/** The Luhn check digit that completes a prefix. */
function withLuhn(prefix: string): string {
  for (let d = 0; d <= 9; d++) if (passesLuhn(prefix + d)) return prefix + d;
  throw new Error('unreachable');
}

describe('the PII refusal', () => {
  it('Luhn', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    expect(passesLuhn('79927398713')).toBe(true);
  });

  describe('a card number is 13–19 digits, Luhn-valid, starting with a major network’s IIN of a matching length', () => {
    it.each([
      ['Visa', '4222222222222'], // 13
      ['Visa', '4000000000000002'], // 16
      ['Visa', withLuhn('400000000000000000')], // 19
      ['Mastercard', '5555555555554444'], // 51–55
      ['Mastercard', '2223003122003222'], // 2221–2720
      ['American Express', '378282246310005'], // 34, 37: 15 digits
      ['American Express', '341111111111111'],
      ['Discover', '6011111111111117'], // 6011
      ['Discover', withLuhn('644000000000000')], // 644–649
      ['Discover', withLuhn('650000000000000000')], // 65, 19 digits
      ['JCB', '3530111333300000'], // 3528–3589
      ['UnionPay', '6200000000000005'], // 62
      ['Diners Club', '36227206271667'], // 36, 14 digits
      ['Diners Club', withLuhn('3800000000000')], // 38
      ['Diners Club', '30569309025904'], // 300–305
    ])('%s %s', (network, digits) => {
      expect(cardNetwork(digits)).toBe(network);
      expect(isCardNumber(digits)).toBe(true);
    });

    it.each([
      ['fails Luhn', '4000000000000001'],
      ['no network starts with 1', withLuhn('100000000000000')],
      ['no network starts with 9', withLuhn('900000000000000')],
      ['Mastercard 56 is outside 51–55', withLuhn('560000000000000')],
      ['Mastercard 2721 is outside 2221–2720', withLuhn('272100000000000')],
      ['Mastercard issues 16 digits only', withLuhn('55555555555544')],
      ['Amex issues 15 digits only', withLuhn('378282246310005' + '0')],
      ['Visa issues 13, 16 or 19 digits, not 15', withLuhn('40000000000000')],
      ['Discover 643 is outside 644–649', withLuhn('643000000000000')],
      ['JCB 3527 is outside 3528–3589', withLuhn('352700000000000')],
      ['Diners 306 is outside 300–305', withLuhn('3060000000000')],
      ['12 digits are too few', withLuhn('40000000000')],
      ['20 digits are too many', withLuhn('4000000000000000000')],
    ])('not a card number: %s (%s)', (_why, digits) => {
      expect(isCardNumber(digits)).toBe(false);
    });
  });

  describe('where it is looked for in a value', () => {
    it.each([
      ['the whole value', '4000000000000002'],
      ['a contiguous run behind a prefix', 'chk_4000000000000002'],
      ['a contiguous run anywhere', 'x4000000000000002y'],
      ['4-4-4-4 with spaces', '4111 1111 1111 1111'],
      ['4-4-4-4 with dashes', '4111-1111-1111-1111'],
      ['4-4-4-4 with dots', '4000.0000.0000.0002'],
      ['4-4-4-4 inside other text', 'card:5555-5555-5555-4444;'],
      ['4-6-5 (Amex)', '3782 822463 10005'],
      [
        '4-4-4-4-3 (19 digits)',
        `${withLuhn('400000000000000000').replace(/^(\d{4})(\d{4})(\d{4})(\d{4})(\d{3})$/, '$1.$2.$3.$4.$5')}`,
      ],
    ])('refused: %s (%s)', (_where, value) => {
      expect(containsCardNumber(value)).toBe(true);
    });

    it.each([
      ['a run of 20 digits (no run of 13–19 with no digit beside it)', '40000000000000020000'],
      ['digits glued to a longer number', '14000000000000002'],
      ['two separators between groups', '4000  0000  0000  0002'],
      ['mixed separators', '4000 0000-0000.0002'],
      ['groups not in a card layout (2-2-…)', '40 00 00 00 00 00 00 02'],
      ['an opaque token', 'chk_9f8e7d6c5b4a'],
      ['a UUID', '4a6f0c3e-1b2d-4c5e-9f00-123456789abc'],
      ['a Luhn-valid run of 11 digits', '79927398713'],
    ])('not refused: %s (%s)', (_why, value) => {
      expect(containsCardNumber(value)).toBe(false);
    });
  });

  it('refuses e-mails in cardholder_token and card numbers in any token field', () => {
    expect(piiProblem('cardholder_token', 'ana@example.com')).toMatch(/e-mail/);
    expect(piiProblem('card_token', 'ana@example.com')).toBeNull();
    expect(piiProblem('card_token', '4111111111111111')).toMatch(/card number/);
    expect(piiProblem('instrument_token', '5555 5555 5555 4444')).toMatch(/card number/);
    expect(piiProblem('cardholder_token', 'chk_4000000000000002')).toMatch(/card number/);
    expect(piiProblem('cardholder_token', 'chk_9f8e7d6c5b4a')).toBeNull();
    expect(piiProblem('card_token', undefined)).toBeNull();
    expect(
      piiProblems({
        cardholder_token: 'ana@example.com',
        card_token: '4000.0000.0000.0002',
        instrument_token: null,
      }).map((p) => p.field),
    ).toEqual(['cardholder_token', 'card_token']);
  });

  it('refuses 2.583% of random 16-digit strings (docs/transactions.md states it)', () => {
    // A random string passes Luhn with probability 1/10 whatever its prefix, so the rate is a tenth
    // of the share of 16-digit strings whose first four digits are a network's IIN.
    const share = (length: number) => {
      let hits = 0;
      for (let p = 0; p < 10_000; p++) {
        if (cardNetwork(String(p).padStart(4, '0') + '0'.repeat(length - 4))) hits++;
      }
      return hits / 10_000 / 10;
    };
    expect(share(16)).toBeCloseTo(0.02583, 6);
    expect(share(15)).toBeCloseTo(0.0046, 6); // Amex and Diners Club
    expect(share(13)).toBeCloseTo(0.01, 6); // Visa only
    expect(share(19)).toBeCloseTo(0.01583, 6);
  });
});
