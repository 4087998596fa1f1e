import { netAmount, refundReverses } from './refunds';

describe('netAmount', () => {
  it('subtracts refunds exactly in decimal (no binary floating point)', () => {
    expect(netAmount('0.3', ['0.1', '0.2'])).toBe('0');
    expect(netAmount('25.0000', ['5.5'])).toBe('19.5');
    expect(netAmount('100', [])).toBe('100');
    expect(netAmount('10.1234', ['0.0001'])).toBe('10.1233');
  });

  it('goes negative when the refunds exceed the purchase', () => {
    expect(netAmount('10', ['7', '5'])).toBe('-2');
  });

  it('refuses more than 4 decimal places', () => {
    expect(() => netAmount('1.00001', [])).toThrow(RangeError);
  });
});

describe('refundReverses', () => {
  it('reverses when the net amount falls below min_spend (offer minor units)', () => {
    expect(refundReverses('19.99', 'USD', 2000)).toBe(true);
    expect(refundReverses('20', 'USD', 2000)).toBe(false);
    expect(refundReverses('-2', 'USD', 0)).toBe(true);
    expect(refundReverses('0', 'USD', 0)).toBe(false);
  });
});
