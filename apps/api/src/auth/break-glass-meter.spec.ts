import { BreakGlassMeter } from './break-glass-meter';

describe('BreakGlassMeter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reports one line per window with the number of uses in it', () => {
    const lines: number[] = [];
    const meter = new BreakGlassMeter((n) => lines.push(n), 60_000);
    meter.use();
    meter.use();
    meter.use();
    expect(lines).toEqual([]);
    jest.advanceTimersByTime(60_000);
    expect(lines).toEqual([3]);
    meter.use();
    jest.advanceTimersByTime(59_999);
    expect(lines).toEqual([3]);
    jest.advanceTimersByTime(1);
    expect(lines).toEqual([3, 1]);
  });

  it('says nothing while the token is not used', () => {
    const lines: number[] = [];
    new BreakGlassMeter((n) => lines.push(n), 1000);
    jest.advanceTimersByTime(10_000);
    expect(lines).toEqual([]);
  });
});
