import { MatchBuffer } from './match-buffer';

describe('MatchBuffer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const setup = (chunk = 5) => {
    const calls: { ids: string[]; requestIds: string[] }[] = [];
    const buffer = new MatchBuffer(
      async (ids, requestIds) => calls.push({ ids, requestIds }),
      25,
      chunk,
    );
    return { calls, buffer };
  };

  it('coalesces small additions into one job after the delay', () => {
    const { calls, buffer } = setup();
    buffer.add(['a'], 'r1');
    buffer.add(['b', 'c'], 'r2');
    expect(calls).toEqual([]);
    jest.advanceTimersByTime(25);
    expect(calls).toEqual([{ ids: ['a', 'b', 'c'], requestIds: ['r1', 'r2'] }]);
    expect(buffer.size).toBe(0);
  });

  it('sends full chunks at once and keeps the rest for the timer', () => {
    const { calls, buffer } = setup(3);
    buffer.add(['a', 'b']);
    buffer.add(['c', 'd', 'e', 'f', 'g']);
    expect(calls.map((c) => c.ids)).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
    jest.advanceTimersByTime(25);
    expect(calls.map((c) => c.ids)).toEqual([['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]);
  });

  it('flush() sends what is buffered and cancels the timer', () => {
    const { calls, buffer } = setup();
    buffer.add(['a']);
    buffer.flush();
    expect(calls.map((c) => c.ids)).toEqual([['a']]);
    jest.advanceTimersByTime(100);
    expect(calls).toHaveLength(1);
  });

  it('a failing flush does not throw to the writer', () => {
    const buffer = new MatchBuffer(() => Promise.reject(new Error('redis down')), 25, 2);
    expect(() => buffer.add(['a', 'b'])).not.toThrow();
  });
});
