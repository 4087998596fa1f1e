import { data as iso4217 } from 'currency-codes';

/**
 * Money is held as integer minor units (cents, yen, fils) with the exponent of its currency.
 * The API speaks decimal major units (12.5); conversion rounds half-up at the minor unit.
 */

/**
 * ISO 4217 codes that are not money an offer or a purchase can be in: precious metals (XAU, XAG,
 * XPT, XPD), bond-market units (XBA–XBD), the SDR (XDR), the Sucre (XSU), the ADB unit (XUA), the
 * test code (XTS) and "no currency" (XXX).
 */
export const NON_MONEY_CODES: ReadonlySet<string> = new Set([
  'XAU',
  'XAG',
  'XPT',
  'XPD',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XSU',
  'XUA',
  'XTS',
  'XXX',
]);

/**
 * The active ISO 4217 currencies and their minor units (JPY 0, USD 2, BHD 3, CLF 4), from the
 * maintained `currency-codes` package (ISO list one).
 */
const EXPONENTS: ReadonlyMap<string, number> = new Map(
  iso4217.filter((c) => !NON_MONEY_CODES.has(c.code)).map((c) => [c.code, c.digits]),
);

/** An active ISO 4217 currency code that is money: what the API accepts as `currency`. */
export function isCurrencyCode(code: unknown): code is string {
  return typeof code === 'string' && EXPONENTS.has(code);
}

export const CURRENCY_MESSAGE = 'must be an active ISO 4217 currency code such as USD';

/**
 * The currency's minor units. A three-letter code outside the list can only come from a row an
 * earlier release stored (it took any three capital letters): it keeps the 2 it was stored with.
 */
export function currencyExponent(currency: string): number {
  const exp = EXPONENTS.get(currency);
  if (exp !== undefined) return exp;
  if (!/^[A-Z]{3}$/.test(currency))
    throw new RangeError(`not an ISO 4217 currency code: ${currency}`);
  return 2;
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** A plain decimal text split into its parts ("-12.50" → negative, "12", "50"). */
export interface DecimalParts {
  negative: boolean;
  whole: string;
  frac: string;
}

/**
 * The one parser of decimal text for money, rates, percentages and refunds: an optional '-',
 * digits, and optionally '.' and digits; nothing else (no spaces, no exponent). Null otherwise.
 */
export function parseDecimal(text: string): DecimalParts | null {
  const m = DECIMAL.exec(text);
  return m ? { negative: !!m[1], whole: m[2], frac: m[3] ?? '' } : null;
}

/**
 * Converts a decimal amount in major units to integer minor units, rounding half-up
 * (away from zero). Works on the decimal digits, never on binary floating point.
 */
export function toMinor(amount: number | string, currency: string): number {
  const exp = currencyExponent(currency);
  const text = typeof amount === 'number' ? numberToPlain(amount) : amount.trim();
  const d = parseDecimal(text);
  if (!d) throw new RangeError(`not a decimal amount: ${amount}`);
  const { negative, whole, frac } = d;
  const kept = (frac + '0'.repeat(exp)).slice(0, exp);
  let minor = BigInt(whole + kept);
  if (frac.length > exp && Number(frac[exp]) >= 5) minor += 1n;
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount too large: ${amount}`);
  const n = Number(minor);
  return negative && n !== 0 ? -n : n;
}

/** Integer minor units back to a decimal number in major units (12.5 for 1250 USD). */
export function toMajor(minor: number | string | bigint, currency: string): number {
  const exp = currencyExponent(currency);
  const n = typeof minor === 'number' ? minor : Number(minor);
  if (!Number.isSafeInteger(n))
    throw new RangeError(`minor units must be a safe integer: ${minor}`);
  return exp === 0 ? n : Number((n / 10 ** exp).toFixed(exp));
}

/** True when the amount has no more decimal places than the currency allows. */
export function fitsCurrency(amount: number | string, currency: string): boolean {
  const text = typeof amount === 'number' ? numberToPlain(amount) : amount;
  const d = parseDecimal(text);
  return !!d && d.frac.replace(/0+$/, '').length <= currencyExponent(currency);
}

/** Multiplies minor units by a rate (0.5, 0.125) and rounds half-up at the minor unit. */
export function applyRate(minor: number, rate: number | string): number {
  const d = parseDecimal(String(rate));
  if (!d) throw new RangeError(`not a decimal rate: ${rate}`);
  const { negative, whole, frac } = d;
  const scale = 10n ** BigInt(frac.length);
  const product = BigInt(minor) * BigInt(whole + frac);
  const rounded = (2n * product + scale) / (2n * scale);
  return Number(negative ? -rounded : rounded);
}

function numberToPlain(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite amount: ${n}`);
  // toString switches to exponent notation for tiny or huge values; toFixed(20) keeps digits.
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(20).replace(/\.?0+$/, '') : s;
}
