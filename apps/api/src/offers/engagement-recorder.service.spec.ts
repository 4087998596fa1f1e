import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import {
  EngagementRecorder,
  FLUSH_BATCH,
  FLUSH_INTERVAL_MS,
  MAX_BUFFERED,
} from './engagement-recorder.service';
import { EngagementEventsRepository } from './engagement-events.repository';

const INST = '11111111-1111-4111-8111-111111111111';

function recorder(query: jest.Mock) {
  const db = { query, isInitialized: true } as unknown as DataSource & { isInitialized: boolean };
  return { r: new EngagementRecorder(new EngagementEventsRepository(db)), db };
}

describe('EngagementRecorder', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterEach(() => jest.useRealTimers());

  it('writes a feed call as one widget view and one impression per offer, in one multi-row statement', async () => {
    const query = jest.fn(async () => []);
    const { r } = recorder(query);
    const at = new Date('2026-11-21T10:00:00Z');
    r.recordFeed(INST, 'ch-1', ['o1', 'o2'], at);
    r.recordAdd(INST, 'ch-1', 'o1', at);
    expect(query).not.toHaveBeenCalled();
    await r.flush();
    expect(query).toHaveBeenCalledTimes(1);
    const [sql, params] = query.mock.calls[0] as unknown as [string, unknown[][]];
    expect(sql).toMatch(/unnest/);
    expect(params).toEqual([
      [INST, INST, INST, INST],
      ['widget_view', 'impression', 'impression', 'add_success'],
      ['ch-1', 'ch-1', 'ch-1', 'ch-1'],
      [null, 'o1', 'o2', 'o1'],
      Array(4).fill(at.toISOString()),
    ]);
    expect(r.pending).toBe(0);
    await r.flush();
    expect(query).toHaveBeenCalledTimes(1); // nothing left: no empty write
  });

  it('flushes on its timer', async () => {
    jest.useFakeTimers();
    const query = jest.fn(async () => []);
    const { r } = recorder(query);
    r.onModuleInit();
    r.recordFeed(INST, 'ch-1', []);
    await jest.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS + 1);
    expect(query).toHaveBeenCalledTimes(1);
    await r.onApplicationShutdown();
  });

  it('writes at once when FLUSH_BATCH events wait', async () => {
    const query = jest.fn(async () => []);
    const { r } = recorder(query);
    r.recordFeed(
      INST,
      'ch-1',
      Array.from({ length: FLUSH_BATCH - 1 }, (_, i) => `o${i}`),
    );
    await new Promise((res) => setImmediate(res));
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('keeps a failed batch for the next write, in order, and never throws', async () => {
    let fail = true;
    const query = jest.fn(async () => {
      if (fail) throw new Error('connection refused');
      return [];
    });
    const { r } = recorder(query);
    r.recordAdd(INST, 'ch-1', 'first');
    await expect(r.flush()).resolves.toBeUndefined();
    expect(r.pending).toBe(1);
    r.recordAdd(INST, 'ch-1', 'second');
    fail = false;
    await r.flush();
    expect((query.mock.calls[1] as unknown as [string, unknown[][]])[1][3]).toEqual([
      'first',
      'second',
    ]);
    expect(r.pending).toBe(0);
  });

  it('drops the oldest events beyond MAX_BUFFERED while the database is down', async () => {
    const query = jest.fn(async () => {
      throw new Error('down');
    });
    const { r } = recorder(query);
    for (let i = 0; i < 3; i++)
      r.recordFeed(
        INST,
        'ch',
        Array.from({ length: MAX_BUFFERED / 2 }, (_, k) => `o${i}-${k}`),
      );
    await r.flush();
    expect(r.pending).toBe(MAX_BUFFERED);
  });

  it('writes what is buffered at shutdown', async () => {
    const query = jest.fn(async () => []);
    const { r } = recorder(query);
    r.onModuleInit();
    r.recordAdd(INST, 'ch-1', 'o1');
    await r.onApplicationShutdown();
    expect(query).toHaveBeenCalledTimes(1);
  });
});
