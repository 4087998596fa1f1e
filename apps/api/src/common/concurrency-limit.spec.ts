import { ConcurrencyLimit } from './concurrency-limit';

/** A task that runs until released, recording when it started. */
function task(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return {
    release,
    fn: async () => {
      log.push(name);
      await done;
      return name;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ConcurrencyLimit', () => {
  it('runs at most `limit` at once and starts the rest in arrival order as slots free', async () => {
    const limit = new ConcurrencyLimit(2);
    const log: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => task(log, n));
    const results = [a, b, c, d].map((t) => limit.run(t.fn));
    await tick();
    expect(log).toEqual(['a', 'b']);
    b.release();
    await tick();
    expect(log).toEqual(['a', 'b', 'c']);
    a.release();
    await tick();
    expect(log).toEqual(['a', 'b', 'c', 'd']);
    c.release();
    d.release();
    await expect(Promise.all(results)).resolves.toEqual(['a', 'b', 'c', 'd']);
  });

  it('frees the slot of a call that fails', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limit.run(async () => 'next')).resolves.toBe('next');
  });
});
