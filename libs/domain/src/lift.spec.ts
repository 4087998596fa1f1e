import { divideHalfUp, GroupStatistics, liftFigures, roundTo } from './lift';

const stats = (cardholders: number, spends: number[], pre: number[]): GroupStatistics => {
  const e4 = spends.map((s) => BigInt(Math.round(s * 1e4)));
  return {
    cardholders,
    buyers: spends.filter((s) => s > 0).length,
    spendE4: e4.reduce((a, b) => a + b, 0n),
    spendSquaresE8: e4.reduce((a, b) => a + b * b, 0n),
    preBuyers: pre.filter((s) => s > 0).length,
    preSpendE4: pre.map((s) => BigInt(Math.round(s * 1e4))).reduce((a, b) => a + b, 0n),
  };
};

describe('lift figures, each rounded once from unrounded values', () => {
  // The population of docs/lift.md's worked example: exposed spends 45, 0, 0, 0, 4.5 (pre: one
  // cardholder 12), holdout 20, 0, 0, 10 (pre: one cardholder 8); rewards 2.00 paid, 3.00 funded.
  const exposed = stats(5, [45, 4.5], [12]);
  const holdout = stats(4, [20, 10], [8]);
  const rewards = { institutionPayoutMinor: 200n, merchantFundedMinor: 300n };

  it('equals the hand calculation', () => {
    expect(liftFigures(exposed, holdout, rewards, 'USD')).toEqual({
      groups: {
        exposed: {
          cardholders: 5,
          buyers: 2,
          purchase_rate: 0.4,
          spend: 49.5,
          spend_per_cardholder: 9.9,
          pre_period: { purchase_rate: 0.2, spend_per_cardholder: 2.4 },
        },
        holdout: {
          cardholders: 4,
          buyers: 2,
          purchase_rate: 0.5,
          spend: 30,
          spend_per_cardholder: 7.5,
          pre_period: { purchase_rate: 0.25, spend_per_cardholder: 2 },
        },
      },
      lift: -0.2,
      // Newcombe 10 for 2/5 − 2/4; Welch: variances 388.8 and 91.666…, df 6.0092, t 2.446004.
      rate_difference: { value: -0.1, ci_low: -0.549678, ci_high: 0.408761 },
      spend_difference: { value: 2.4, ci_low: -22.14, ci_high: 26.94 },
      incremental_spend: 12,
      rewards_paid: { institution_payout: 2, merchant_funded: 3 },
      return_on_spend: 4,
    });
  });

  it('rounds money half-up at the currency decimals, once', () => {
    // 10.005 per cardholder over 2 cardholders is 20.01 in all; 1/3 of 0.01 stays unrounded until the end.
    const f = liftFigures(stats(3, [0.01], []), stats(2, [], []), rewards, 'USD');
    expect(f.groups.exposed.spend_per_cardholder).toBe(0); // 0.00333…
    expect(f.incremental_spend).toBe(0.01);
    expect(
      liftFigures(stats(2, [0.01], []), stats(1, [], []), rewards, 'USD').groups.exposed
        .spend_per_cardholder,
    ).toBe(0.01); // 0.005 → 0.01
    expect(
      liftFigures(stats(2, [1], []), stats(1, [], []), rewards, 'JPY').groups.exposed
        .spend_per_cardholder,
    ).toBe(1); // 0.5 → 1
  });

  it('is null where undefined: an empty group, a zero holdout rate, no rewards', () => {
    const empty = stats(0, [], []);
    const none = liftFigures(
      exposed,
      empty,
      { institutionPayoutMinor: 0n, merchantFundedMinor: 0n },
      'USD',
    );
    expect(none.groups.holdout).toEqual({
      cardholders: 0,
      buyers: 0,
      purchase_rate: null,
      spend: 0,
      spend_per_cardholder: null,
      pre_period: { purchase_rate: null, spend_per_cardholder: null },
    });
    expect(none.lift).toBeNull();
    expect(none.rate_difference).toEqual({ value: null, ci_low: null, ci_high: null });
    expect(none.spend_difference).toEqual({ value: null, ci_low: null, ci_high: null });
    expect(none.incremental_spend).toBeNull();
    expect(none.return_on_spend).toBeNull();
    const zeroRate = liftFigures(exposed, stats(4, [], []), rewards, 'USD');
    expect(zeroRate.lift).toBeNull();
    expect(zeroRate.rate_difference.value).toBe(0.4);
    expect(JSON.stringify(zeroRate)).not.toMatch(/NaN|Infinity/);
  });
});

describe('rounding helpers', () => {
  it('divideHalfUp rounds half away from zero', () => {
    expect(divideHalfUp(5n, 2n)).toBe(3n);
    expect(divideHalfUp(-5n, 2n)).toBe(-3n);
    expect(divideHalfUp(4n, 3n)).toBe(1n);
  });
  it('roundTo rounds half away from zero at the given decimals', () => {
    expect(roundTo(0.1234565, 6)).toBe(0.123457);
    expect(roundTo(-2.345, 2)).toBe(-2.35);
    expect(roundTo(-0.0000001, 6)).toBe(0);
  });
});
