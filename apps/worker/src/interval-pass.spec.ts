import { Logger } from '@nestjs/common';
import { IntervalPass } from './interval-pass';

function deferred() {
  let resolve!: (v: number) => void;
  const promise = new Promise<number>((r) => (resolve = r));
  return { promise, resolve };
}

describe('IntervalPass', () => {
  const logger = () => {
    const l = new Logger('test');
    const warn = jest.spyOn(l, 'warn').mockImplementation(() => undefined);
    return { l, warn };
  };
  afterEach(() => jest.useRealTimers());

  it('runs one pass at a time: a call while one runs answers `otherwise` without running', async () => {
    const p = new IntervalPass(logger().l, 'test');
    const first = deferred();
    const second = jest.fn(async () => 2);
    const running = p.run(() => first.promise, 0);
    expect(await p.run(second, -1)).toBe(-1);
    expect(second).not.toHaveBeenCalled();
    first.resolve(1);
    expect(await running).toBe(1);
    expect(await p.run(second, -1)).toBe(2);
  });

  it('a failed pass is logged with its name, answers `otherwise` and frees the next one', async () => {
    const { l, warn } = logger();
    const p = new IntervalPass(l, 'CSV relay');
    expect(await p.run(() => Promise.reject(new Error('db down')), 0)).toBe(0);
    expect(warn).toHaveBeenCalledWith({ err: 'db down' }, 'CSV relay pass failed');
    expect(await p.run(async () => 3, 0)).toBe(3);
  });

  it('ticks every interval until stopped', async () => {
    jest.useFakeTimers();
    const p = new IntervalPass(logger().l, 'test');
    const tick = jest.fn(async () => undefined);
    p.every(1_000, tick);
    await jest.advanceTimersByTimeAsync(3_000);
    expect(tick).toHaveBeenCalledTimes(3);
    p.stop();
    await jest.advanceTimersByTimeAsync(3_000);
    expect(tick).toHaveBeenCalledTimes(3);
  });
});
