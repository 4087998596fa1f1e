/**
 * The service must never receive e-mail addresses or real card numbers where an opaque token
 * belongs. These checks reject the two shapes that are unmistakably PII.
 */

/** Luhn (mod 10) check over a string of digits. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** A whole value of 13–19 digits (spaces and dashes ignored) that passes Luhn: a card number. */
export function looksLikeCardNumber(value: string): boolean {
  const digits = value.replace(/[\s-]/g, '');
  return /^\d{13,19}$/.test(digits) && passesLuhn(digits);
}

export function looksLikeEmail(value: string): boolean {
  return value.includes('@');
}

export type PiiField = 'cardholder_token' | 'card_token' | 'instrument_token';

/** Returns a reason when the value is PII for that field, else null. */
export function piiProblem(field: PiiField, value: string | undefined | null): string | null {
  if (value === undefined || value === null) return null;
  if (field === 'cardholder_token' && looksLikeEmail(value)) {
    return 'looks like an e-mail address; send the opaque HMAC token instead';
  }
  if (looksLikeCardNumber(value))
    return 'looks like a card number; send the tokenized value instead';
  return null;
}
