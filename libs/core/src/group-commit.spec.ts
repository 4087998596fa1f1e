import { GroupCommitter } from './group-commit';

/** A write whose completion the test controls. */
function controlledWrite() {
  const calls: { items: number[]; finish: (fail?: Error) => void }[] = [];
  const write = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({
        items,
        finish: (fail) => (fail ? reject(fail) : resolve(items.map((i) => `row-${i}`))),
      });
    });
  return { calls, write };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('GroupCommitter', () => {
  it('writes at once while a slot is free', async () => {
    const { calls, write } = controlledWrite();
    const g = new GroupCommitter(write, { maxBatch: 100, maxInFlight: 2 });
    const a = g.submit(1);
    const b = g.submit(2);
    expect(calls.map((c) => c.items)).toEqual([[1], [2]]);
    calls[0].finish();
    calls[1].finish();
    await expect(a).resolves.toBe('row-1');
    await expect(b).resolves.toBe('row-2');
  });

  it('coalesces items that arrive while every slot is busy into one write', async () => {
    const { calls, write } = controlledWrite();
    const g = new GroupCommitter(write, { maxBatch: 100, maxInFlight: 1 });
    const first = g.submit(0);
    const rest = [1, 2, 3, 4].map((i) => g.submit(i));
    expect(calls).toHaveLength(1);
    expect(g.waiting).toBe(4);
    calls[0].finish();
    await first;
    await flush();
    expect(calls.map((c) => c.items)).toEqual([[0], [1, 2, 3, 4]]);
    calls[1].finish();
    await expect(Promise.all(rest)).resolves.toEqual(['row-1', 'row-2', 'row-3', 'row-4']);
  });

  it('answers no caller before its own write completes', async () => {
    const { calls, write } = controlledWrite();
    const g = new GroupCommitter(write, { maxBatch: 100, maxInFlight: 1 });
    let answered = false;
    g.submit(1);
    const second = g.submit(2).then(() => (answered = true));
    calls[0].finish();
    await flush();
    expect(answered).toBe(false);
    calls[1].finish();
    await second;
    expect(answered).toBe(true);
  });

  it('never puts more than maxBatch items in one write', async () => {
    const { calls, write } = controlledWrite();
    const g = new GroupCommitter(write, { maxBatch: 3, maxInFlight: 1 });
    const all = Array.from({ length: 8 }, (_, i) => g.submit(i));
    for (let i = 0; i < 10 && calls.some((c) => c); i++) {
      calls.forEach((c) => c.finish());
      await flush();
    }
    await Promise.all(all);
    expect(calls.map((c) => c.items.length)).toEqual([1, 3, 3, 1]);
  });

  it('a failed write rejects every caller in it, and later writes go on', async () => {
    const { calls, write } = controlledWrite();
    const g = new GroupCommitter(write, { maxBatch: 10, maxInFlight: 1 });
    const a = g.submit(1);
    const b = g.submit(2);
    const c = g.submit(3);
    calls[0].finish(new Error('db down'));
    await expect(a).rejects.toThrow('db down');
    await flush();
    calls[1].finish(new Error('db down'));
    await expect(b).rejects.toThrow('db down');
    await expect(c).rejects.toThrow('db down');
    const d = g.submit(4);
    calls[2].finish();
    await expect(d).resolves.toBe('row-4');
    expect(g.writing).toBe(0);
  });

  it('a write returning the wrong number of results rejects its callers', async () => {
    const g = new GroupCommitter(async () => ['only-one'], { maxBatch: 10, maxInFlight: 1 });
    g.submit(1);
    const b = g.submit(2);
    const c = g.submit(3);
    await expect(b).rejects.toThrow(/2 items/);
    await expect(c).rejects.toThrow(/2 items/);
  });

  it("a write refused for one item's data is split until only that item fails", async () => {
    // Like PostgreSQL: the whole statement fails (22008 datetime overflow) while item 13 is in it.
    const writes: number[][] = [];
    const write = async (items: number[]) => {
      writes.push(items);
      if (items.includes(13))
        throw Object.assign(new Error('date out of range'), { code: '22008' });
      return items.map((i) => `row-${i}`);
    };
    const g = new GroupCommitter(write, { maxBatch: 100, maxInFlight: 1 });
    const first = g.submit(0); // written alone; the other 19 then leave together
    const rest = Array.from({ length: 19 }, (_, i) => g.submit(i + 1));
    await first;
    const settled = await Promise.allSettled(rest);
    settled.forEach((r, i) => {
      if (i + 1 === 13) expect(r).toMatchObject({ status: 'rejected', reason: { code: '22008' } });
      else expect(r).toEqual({ status: 'fulfilled', value: `row-${i + 1}` });
    });
    expect(writes.length).toBeLessThanOrEqual(2 + 2 * Math.ceil(Math.log2(19)));
  });

  it('an outage (no data error) is not split: every caller fails with it at once', async () => {
    let writes = 0;
    const write = async () => {
      writes++;
      throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
    };
    const g = new GroupCommitter<number, string>(write, { maxBatch: 100, maxInFlight: 1 });
    const all = [1, 2, 3, 4].map((i) => g.submit(i));
    const settled = await Promise.allSettled(all);
    expect(settled.every((r) => r.status === 'rejected')).toBe(true);
    expect(writes).toBe(2);
  });
});
