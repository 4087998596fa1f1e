import { parseDecimal, toMinor } from './money';

/**
 * Refunds (docs/transactions.md): a refund reverses the original purchase's redemption when the net
 * amount left (purchase minus all its refunds) falls below the offer's min_spend.
 */

const SCALE = 4;

function toScaled(amount: string): bigint {
  const d = parseDecimal(amount.trim());
  if (!d) throw new RangeError(`not a decimal amount: ${amount}`);
  const { negative, whole, frac } = d;
  if (frac.replace(/0+$/, '').length > SCALE)
    throw new RangeError(`more than ${SCALE} decimal places: ${amount}`);
  const v = BigInt(whole + (frac + '0'.repeat(SCALE)).slice(0, SCALE));
  return negative ? -v : v;
}

function fromScaled(v: bigint): string {
  const sign = v < 0n ? '-' : '';
  const abs = (v < 0n ? -v : v).toString().padStart(SCALE + 1, '0');
  const whole = abs.slice(0, -SCALE);
  const frac = abs.slice(-SCALE).replace(/0+$/, '');
  return `${sign}${whole}${frac ? `.${frac}` : ''}`;
}

/** Purchase minus refunds, exactly, as decimal text (amounts are stored with 4 decimal places). */
export function netAmount(purchase: string, refunds: readonly string[]): string {
  return fromScaled(refunds.reduce((acc, r) => acc - toScaled(r), toScaled(purchase)));
}

/** The sum of amounts, exactly, as decimal text ("0" for none). */
export function sumAmounts(amounts: readonly string[]): string {
  return fromScaled(amounts.reduce((acc, a) => acc + toScaled(a), 0n));
}

/** True when the net amount, in the offer's minor units, is below the offer's min_spend. */
export function refundReverses(
  netDecimal: string,
  offerCurrency: string,
  minSpendMinor: number,
): boolean {
  return toMinor(netDecimal, offerCurrency) < minSpendMinor;
}
