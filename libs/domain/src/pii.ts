/**
 * The PII refusal: the service must never receive e-mail addresses or real card numbers where an
 * opaque token belongs. This is its one home: the api's token fields (transactions, feed,
 * enrollments, widget sessions) all ask piiProblems().
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

/** A major network's issuer prefix (IIN) range and the card lengths it issues. */
interface Network {
  name: string;
  /** Inclusive prefix ranges, compared on the first `digits` digits. */
  prefixes: [from: number, to: number, digits: number][];
  lengths: [min: number, max: number];
  /** Visa issues 13, 16 and 19 digits only. */
  only?: number[];
}

export const CARD_NETWORKS: readonly Network[] = [
  { name: 'Visa', prefixes: [[4, 4, 1]], lengths: [13, 19], only: [13, 16, 19] },
  {
    name: 'Mastercard',
    prefixes: [
      [51, 55, 2],
      [2221, 2720, 4],
    ],
    lengths: [16, 16],
  },
  {
    name: 'American Express',
    prefixes: [
      [34, 34, 2],
      [37, 37, 2],
    ],
    lengths: [15, 15],
  },
  {
    name: 'Discover',
    prefixes: [
      [6011, 6011, 4],
      [644, 649, 3],
      [65, 65, 2],
    ],
    lengths: [16, 19],
  },
  { name: 'JCB', prefixes: [[3528, 3589, 4]], lengths: [16, 19] },
  { name: 'UnionPay', prefixes: [[62, 62, 2]], lengths: [16, 19] },
  {
    name: 'Diners Club',
    prefixes: [
      [36, 36, 2],
      [38, 38, 2],
      [300, 305, 3],
    ],
    lengths: [14, 19],
  },
];

/** The network whose IIN starts these digits and that issues numbers of their length, or null. */
export function cardNetwork(digits: string): string | null {
  const n = digits.length;
  for (const net of CARD_NETWORKS) {
    if (n < net.lengths[0] || n > net.lengths[1] || (net.only && !net.only.includes(n))) continue;
    for (const [from, to, len] of net.prefixes) {
      const prefix = Number(digits.slice(0, len));
      if (prefix >= from && prefix <= to) return net.name;
    }
  }
  return null;
}

/** A card number: 13–19 digits, a major network's IIN for that length, and a valid Luhn digit. */
export function isCardNumber(digits: string): boolean {
  return /^\d{13,19}$/.test(digits) && cardNetwork(digits) !== null && passesLuhn(digits);
}

/**
 * Where a card number can hide in a value: a run of 13–19 digits with no digit on either side
 * (`chk_4000000000000002`), or the printed layouts 4-4-4-4, 4-6-5 and 4-4-4-4-3 with one space,
 * `-` or `.` between the groups (the same one throughout: `4000.0000.0000.0002`). Lookaheads, so
 * overlapping readings (a 4-4-4-4 inside a 4-4-4-4-3) are all tried.
 */
const CANDIDATES: RegExp[] = [
  /(?<!\d)(?=(\d{13,19})(?!\d))/g,
  ...[
    [4, 4, 4, 4, 3],
    [4, 4, 4, 4],
    [4, 6, 5],
  ].map(
    (groups) =>
      new RegExp(
        `(?<!\\d)(?=(\\d{${groups[0]}}([ .-])${groups
          .slice(1)
          .map((g) => `\\d{${g}}`)
          .join('\\2')})(?!\\d))`,
        'g',
      ),
  ),
];

/** True when the value holds a card number anywhere, contiguous or in a card layout. */
export function containsCardNumber(value: string): boolean {
  for (const re of CANDIDATES) {
    for (const m of value.matchAll(re)) {
      if (isCardNumber(m[1].replace(/[ .-]/g, ''))) return true;
    }
  }
  return false;
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
  if (containsCardNumber(value))
    return 'looks like a card number; send the tokenized value instead';
  return null;
}

/** Every token field of a request that holds PII, with its reason: refuse the request when any. */
export function piiProblems(
  fields: Partial<Record<PiiField, string | null | undefined>>,
): { field: PiiField; message: string }[] {
  const problems: { field: PiiField; message: string }[] = [];
  for (const [field, value] of Object.entries(fields) as [PiiField, string | null | undefined][]) {
    const message = piiProblem(field, value);
    if (message) problems.push({ field, message });
  }
  return problems;
}

/** The refusal's summary, the same for every endpoint. */
export const PII_REJECTED_MESSAGE =
  'A token field holds what looks like personal data (an e-mail address or a card number); send opaque tokens only.';
