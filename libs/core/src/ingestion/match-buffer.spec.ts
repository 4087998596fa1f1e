import { MatchBuffer } from './match-buffer';

describe('MatchBuffer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** At most 25 ms between jobs, 2 ms per id the previous job carried. */
  const setup = (chunk = 50) => {
    const calls: { ids: string[]; requestIds: string[] }[] = [];
    const buffer = new MatchBuffer(
      async (ids, requestIds) => calls.push({ ids, requestIds }),
      25,
      chunk,
      2,
    );
    return { calls, buffer };
  };
  const ids = (n: number, prefix = 'x') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

  it('sends ids at once when nothing was sent before (a quiet api does not wait)', () => {
    const { calls, buffer } = setup();
    buffer.add(['a'], 'r1');
    expect(calls).toEqual([{ ids: ['a'], requestIds: ['r1'] }]);
    expect(buffer.size).toBe(0);
  });

  it('after a job of one id, sends the next id at once from 2 ms on (a purchase now and then)', () => {
    const { calls, buffer } = setup();
    buffer.add(['a']);
    jest.advanceTimersByTime(2);
    buffer.add(['b']);
    jest.advanceTimersByTime(20);
    buffer.add(['c']);
    expect(calls.map((c) => c.ids)).toEqual([['a'], ['b'], ['c']]);
  });

  it('holds ids that come sooner and sends them together when the gap ends', () => {
    const { calls, buffer } = setup();
    buffer.add(['a', 'b', 'c'], 'r1');
    jest.advanceTimersByTime(1);
    buffer.add(['d'], 'r2');
    buffer.add(['e'], 'r3');
    jest.advanceTimersByTime(4);
    expect(calls.map((c) => c.ids)).toEqual([['a', 'b', 'c']]);
    jest.advanceTimersByTime(1);
    expect(calls).toEqual([
      { ids: ['a', 'b', 'c'], requestIds: ['r1'] },
      { ids: ['d', 'e'], requestIds: ['r2', 'r3'] },
    ]);
  });

  it('a fast stream settles at one job per delay (the gap is at most the delay)', () => {
    const { calls, buffer } = setup();
    buffer.add(ids(20, 'a'));
    jest.advanceTimersByTime(1);
    buffer.add(ids(5, 'b'));
    jest.advanceTimersByTime(23);
    buffer.add(ids(5, 'c'));
    expect(calls).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(calls.map((c) => c.ids.length)).toEqual([20, 10]);
  });

  it('sends full chunks at once and keeps the rest for the end of the gap', () => {
    const { calls, buffer } = setup(4);
    buffer.add(['a', 'b']);
    buffer.add(['c', 'd', 'e', 'f', 'g']);
    expect(calls.map((c) => c.ids)).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e', 'f'],
    ]);
    buffer.add(['h']);
    expect(calls).toHaveLength(2);
    jest.advanceTimersByTime(8);
    expect(calls.map((c) => c.ids)).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e', 'f'],
      ['g', 'h'],
    ]);
  });

  it('flush() sends what is buffered and cancels the timer', () => {
    const { calls, buffer } = setup();
    buffer.add(['a']);
    buffer.add(['b']);
    expect(calls.map((c) => c.ids)).toEqual([['a']]);
    buffer.flush();
    expect(calls.map((c) => c.ids)).toEqual([['a'], ['b']]);
    jest.advanceTimersByTime(100);
    expect(calls).toHaveLength(2);
  });

  it('a failing flush does not throw to the writer', () => {
    const buffer = new MatchBuffer(() => Promise.reject(new Error('redis down')), 25, 2);
    expect(() => buffer.add(['a', 'b'])).not.toThrow();
    expect(() => buffer.add(['c'])).not.toThrow();
  });
});
