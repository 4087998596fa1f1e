import { data as isoList } from 'currency-codes';
import {
  applyRate,
  currencyExponent,
  fitsCurrency,
  isCurrencyCode,
  NON_MONEY_CODES,
  parseDecimal,
  toMajor,
  toMinor,
} from './money';

describe('money', () => {
  it('accepts only active ISO 4217 codes that are money', () => {
    for (const code of ['USD', 'EUR', 'BRL', 'JPY', 'BHD', 'CLF', 'XAF', 'XOF', 'XPF', 'XCD'])
      expect(isCurrencyCode(code)).toBe(true);
    // unknown, not active, malformed
    for (const code of ['ZZZ', 'ABC', 'HRK', 'usd', 'US', 'EURO', '', 840, null])
      expect(isCurrencyCode(code)).toBe(false);
    // ISO 4217 codes that are not money
    for (const code of ['XAU', 'XAG', 'XPT', 'XPD', 'XBA', 'XBB', 'XBC', 'XBD'])
      expect(isCurrencyCode(code)).toBe(false);
    for (const code of ['XDR', 'XSU', 'XUA', 'XTS', 'XXX'])
      expect(isCurrencyCode(code)).toBe(false);
    expect([...NON_MONEY_CODES].every((code) => !isCurrencyCode(code))).toBe(true);
  });

  it('takes minor units from the same ISO 4217 list (JPY 0, USD 2, BHD 3, CLF 4)', () => {
    expect(currencyExponent('USD')).toBe(2);
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('CLP')).toBe(0);
    expect(currencyExponent('KWD')).toBe(3);
    expect(currencyExponent('BHD')).toBe(3);
    expect(currencyExponent('CLF')).toBe(4);
    // the money code and the list agree on every currency it accepts
    const money = isoList.filter((c) => !NON_MONEY_CODES.has(c.code));
    expect(money.length).toBeGreaterThan(150);
    for (const c of money) {
      expect(isCurrencyCode(c.code)).toBe(true);
      expect([c.code, currencyExponent(c.code)]).toEqual([c.code, c.digits]);
      expect(toMajor(10 ** c.digits, c.code)).toBe(1);
    }
  });

  it('reads a three-letter code an earlier release stored (any capitals) with 2 decimals', () => {
    expect(currencyExponent('ZZZ')).toBe(2);
    expect(() => currencyExponent('usd')).toThrow(RangeError);
    expect(() => currencyExponent('EURO')).toThrow(RangeError);
  });

  it('converts major to minor units with half-up rounding on decimal digits, not floats', () => {
    expect(toMinor(12.5, 'USD')).toBe(1250);
    expect(toMinor('0.1', 'USD')).toBe(10);
    expect(toMinor(0.1 + 0.2, 'USD')).toBe(30); // 0.30000000000000004
    expect(toMinor(1.005, 'USD')).toBe(101); // binary 1.00499999... must still round half-up
    expect(toMinor(1.004, 'USD')).toBe(100);
    expect(toMinor('2.675', 'USD')).toBe(268);
    expect(toMinor(-1.005, 'USD')).toBe(-101);
    expect(toMinor(1234.5, 'JPY')).toBe(1235);
    expect(toMinor(1234.4, 'JPY')).toBe(1234);
    expect(toMinor(1.2345, 'KWD')).toBe(1235);
    expect(toMinor(0, 'USD')).toBe(0);
    expect(toMinor(1e-7, 'USD')).toBe(0);
    expect(() => toMinor('abc', 'USD')).toThrow(RangeError);
    expect(() => toMinor(Number.NaN, 'USD')).toThrow(RangeError);
  });

  it('converts minor units back to major', () => {
    expect(toMajor(1250, 'USD')).toBe(12.5);
    expect(toMajor('199', 'USD')).toBe(1.99);
    expect(toMajor(1235, 'JPY')).toBe(1235);
    expect(toMajor(1235, 'KWD')).toBe(1.235);
    expect(toMajor(-5, 'USD')).toBe(-0.05);
  });

  it('tells whether an amount fits the currency decimals', () => {
    expect(fitsCurrency(12.5, 'USD')).toBe(true);
    expect(fitsCurrency(12.505, 'USD')).toBe(false);
    expect(fitsCurrency('12.500', 'USD')).toBe(true);
    expect(fitsCurrency(12.5, 'JPY')).toBe(false);
    expect(fitsCurrency(12, 'JPY')).toBe(true);
  });

  it('applies a rate with half-up rounding at the minor unit', () => {
    expect(applyRate(101, 0.5)).toBe(51); // 50.5 → 51
    expect(applyRate(100, 0.5)).toBe(50);
    expect(applyRate(3, '0.3333')).toBe(1);
    expect(applyRate(1999, 0.125)).toBe(250); // 249.875 → 250
    expect(applyRate(1000, 1)).toBe(1000);
    expect(applyRate(1000, 0)).toBe(0);
  });

  it('splits a merchant-funded amount exactly: revenue + payout = funded', () => {
    for (const [cashback, fee, rate] of [
      [500, 101, 0.5],
      [1, 1, 0.5],
      [1999, 333, 0.3333],
      [0, 7, 0.25],
      [1234, 0, 0.5],
    ] as const) {
      const revenue = applyRate(fee, rate);
      const payout = cashback + fee - revenue;
      expect(Number.isSafeInteger(revenue)).toBe(true);
      expect(revenue).toBeGreaterThanOrEqual(0);
      expect(revenue).toBeLessThanOrEqual(fee);
      expect(payout).toBeGreaterThanOrEqual(cashback);
    }
  });

  it('parses decimal text only: sign, digits, optional fraction; no spaces, exponent or bare dot', () => {
    expect(parseDecimal('-12.50')).toEqual({ negative: true, whole: '12', frac: '50' });
    expect(parseDecimal('7')).toEqual({ negative: false, whole: '7', frac: '' });
    for (const bad of [' 1', '1e3', '.5', '5.', '+1', '1,5', ''])
      expect(parseDecimal(bad)).toBeNull();
  });
});
