import { newcombeHybrid, tQuantile, welchInterval, wilsonInterval } from './lift-statistics';

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

describe("Newcombe's hybrid score interval (method 10) reproduces Newcombe 1998, Table II", () => {
  it.each([
    // x1, n1, x2, n2, low, high
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [6, 7, 2, 7, 0.0582, 0.8062],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
    [10, 10, 0, 20, 0.6791, 1],
    [10, 10, 0, 10, 0.6075, 1],
  ])('%i/%i − %i/%i: [%p, %p]', (x1, n1, x2, n2, low, high) => {
    const ci = newcombeHybrid(x1, n1, x2, n2)!;
    expect(ci.value).toBeCloseTo(x1 / n1 - x2 / n2, 12);
    expect([r4(ci.low), r4(ci.high)]).toEqual([low, high]);
  });

  it('is built on Wilson score intervals (81/263: 0.2553 to 0.3662, Newcombe 1998 method 3 example)', () => {
    const w = wilsonInterval(81, 263);
    expect([r4(w.low), r4(w.high)]).toEqual([0.2553, 0.3662]);
  });

  it('is undefined (null) when a group is empty', () => {
    expect(newcombeHybrid(1, 10, 0, 0)).toBeNull();
    expect(newcombeHybrid(0, 0, 1, 10)).toBeNull();
  });
});

describe("Welch's t interval with Welch–Satterthwaite degrees of freedom", () => {
  it('matches a hand calculation checked by numerical integration of the t density', () => {
    // {3, 5, 7, 9} vs {1, 2, 3}: means 6 and 2, variances 20/3 and 1; se² = 5/3 + 1/3 = 2;
    // df = 4 / ((5/3)²/3 + (1/3)²/2) = 4.075472; t(0.975, df) = 2.756285 (Simpson's rule on the
    // density, bisection on the quantile); 4 ± 2.756285·√2.
    const ci = welchInterval({ n: 4, mean: 6, variance: 20 / 3 }, { n: 3, mean: 2, variance: 1 })!;
    expect(ci.df).toBeCloseTo(4.075472, 6);
    expect(ci.value).toBe(4);
    expect(ci.low).toBeCloseTo(0.102025, 6);
    expect(ci.high).toBeCloseTo(7.897975, 6);
  });

  it('is undefined (null) with fewer than two in a group, or no variance at all', () => {
    expect(
      welchInterval({ n: 1, mean: 1, variance: 0 }, { n: 5, mean: 1, variance: 2 }),
    ).toBeNull();
    expect(
      welchInterval({ n: 3, mean: 1, variance: 0 }, { n: 5, mean: 1, variance: 0 }),
    ).toBeNull();
  });
});

describe('the t quantile', () => {
  it.each([
    [1, 12.706205],
    [5, 2.570582],
    [10, 2.228139],
    [30, 2.042272],
    [1e7, 1.959964],
  ])('t(0.975, %p) = %p (published tables)', (df, t) => {
    expect(tQuantile(0.975, df)).toBeCloseTo(t, 6);
  });
});
