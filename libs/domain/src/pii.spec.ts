import { looksLikeCardNumber, passesLuhn, piiProblem } from './pii';

describe('PII guard', () => {
  it('Luhn', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    expect(passesLuhn('79927398713')).toBe(true);
  });

  it('spots card numbers of 13–19 digits, ignoring spaces and dashes', () => {
    expect(looksLikeCardNumber('4111 1111 1111 1111')).toBe(true);
    expect(looksLikeCardNumber('4111-1111-1111-1111')).toBe(true);
    expect(looksLikeCardNumber('4222222222222')).toBe(true); // 13 digits
    expect(looksLikeCardNumber('4111111111111112')).toBe(false); // fails Luhn
    expect(looksLikeCardNumber('79927398713')).toBe(false); // too short
    expect(looksLikeCardNumber('tok_4111111111111111')).toBe(false); // not the whole value
  });

  it('rejects e-mails in cardholder_token and card numbers in any token field', () => {
    expect(piiProblem('cardholder_token', 'ana@example.com')).toMatch(/e-mail/);
    expect(piiProblem('card_token', 'ana@example.com')).toBeNull();
    expect(piiProblem('card_token', '4111111111111111')).toMatch(/card number/);
    expect(piiProblem('instrument_token', '5555 5555 5555 4444')).toMatch(/card number/);
    expect(piiProblem('cardholder_token', 'chk_9f8e7d6c5b4a')).toBeNull();
    expect(piiProblem('card_token', undefined)).toBeNull();
  });
});
