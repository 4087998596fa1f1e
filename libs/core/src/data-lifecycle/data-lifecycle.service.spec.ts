import { Logger } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import type { KeptPartition } from '@app/db';
import { Partition, partitionOf } from '@app/domain';
import { DataLifecycleService } from './data-lifecycle.service';
import type { DropOutcome, PartitionsRepository } from './partitions.repository';

/** The repository's statements over a map of partitions, with institutions held per partition. */
class FakePartitions {
  partitions = new Map<string, Partition>();
  heldIn = new Map<string, string[]>();
  /** Months holding a pending delivery. */
  pendingIn = new Set<string>();
  partitioned = new Set(['engagement_event']);
  runs = new Map<number, { created: string[]; dropped: string[]; kept: KeptPartition[] }>();

  isPartitioned = (table: string) => Promise.resolve(this.partitioned.has(table));
  hasCopy = () => Promise.resolve(false);
  list = (table: string) =>
    Promise.resolve(
      [...this.partitions.values()]
        .filter((p) => p.name.startsWith(`${table}_p`))
        .sort((a, b) => a.from.getTime() - b.from.getTime()),
    );
  create = (_table: string, p: Partition) => {
    if (this.partitions.has(p.name)) return Promise.resolve(false);
    this.partitions.set(p.name, p);
    return Promise.resolve(true);
  };
  dropUnlessHeld = (
    _table: string,
    p: Partition,
    followers: Partition[] = [],
  ): Promise<DropOutcome> => {
    const held = this.heldIn.get(p.name);
    if (held?.length)
      return Promise.resolve({
        dropped: false,
        kept: { partition: p.name, reason: 'legal_hold', institutions: held },
      });
    if (this.pendingIn.has(p.name))
      return Promise.resolve({
        dropped: false,
        kept: { partition: p.name, reason: 'pending_delivery' },
      });
    for (const x of [p, ...followers]) this.partitions.delete(x.name);
    return Promise.resolve({ dropped: true });
  };
  claimRun = (tick: Date) => {
    if (this.runs.has(tick.getTime())) return Promise.resolve(false);
    this.runs.set(tick.getTime(), { created: [], dropped: [], kept: [] });
    return Promise.resolve(true);
  };
  recordRun = (
    tick: Date,
    r: { created: string[]; dropped: string[]; kept: KeptPartition[] },
  ): Promise<void> => {
    this.runs.set(tick.getTime(), { created: r.created, dropped: r.dropped, kept: r.kept });
    return Promise.resolve();
  };
}

const config = {
  retention: { engagementMonths: 13, webhookDays: 90, transactionsMonths: 25 },
} as AppConfig;
const at = (iso: string) => new Date(iso);
const now = at('2026-11-26T16:20:00Z');

function setUp() {
  const repo = new FakePartitions();
  const service = new DataLifecycleService(repo as unknown as PartitionsRepository, config);
  return { repo, service };
}

describe('DataLifecycleService', () => {
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  beforeAll(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));

  it('creates every month retention keeps through two ahead, then nothing on the next run', async () => {
    const { repo, service } = setUp();
    const first = await service.run(now);
    expect(first.created[0]).toBe('engagement_event_p2025_10');
    expect(first.created.at(-1)).toBe('engagement_event_p2027_01');
    expect(first.created).toHaveLength(16);
    expect((await service.run(now)).created).toEqual([]);
    expect(repo.runs.get(at('2026-11-26T16:00:00Z').getTime())?.created).toEqual([]);
  });

  it('drops the expired months, keeps a held one and records why', async () => {
    const { repo, service } = setUp();
    for (const month of ['2025-08-10', '2025-09-10', '2025-10-10'])
      await repo.create(
        'engagement_event',
        partitionOf('engagement_event', at(`${month}T00:00:00Z`)),
      );
    repo.heldIn.set('engagement_event_p2025_08', ['inst-held']);

    const run = await service.run(now);
    expect(run.dropped).toEqual(['engagement_event_p2025_09']);
    expect(run.kept).toEqual([
      { partition: 'engagement_event_p2025_08', reason: 'legal_hold', institutions: ['inst-held'] },
    ]);
    expect(repo.partitions.has('engagement_event_p2025_10')).toBe(true);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ partition: 'engagement_event_p2025_08', reason: 'legal_hold' }),
      expect.stringContaining('institutions under legal hold have rows in it'),
    );
    expect(repo.runs.get(run.tick.getTime())).toEqual({
      created: run.created,
      dropped: ['engagement_event_p2025_09'],
      kept: run.kept,
    });
  });

  it('drops a month of webhook deliveries with its attempts’ month; keeps one holding a pending delivery', async () => {
    const { repo, service } = setUp();
    repo.partitioned.add('webhook_delivery').add('webhook_attempt');
    for (const month of ['2026-06-10', '2026-07-10', '2026-10-10'])
      for (const t of ['webhook_delivery', 'webhook_attempt'])
        await repo.create(t, partitionOf(t, at(`${month}T00:00:00Z`)));
    repo.pendingIn.add('webhook_delivery_p2026_06');

    const run = await service.run(now);
    // July ended 1 August: 90 days later (30 October) it expired; October is kept.
    expect(run.dropped).toEqual(['webhook_delivery_p2026_07', 'webhook_attempt_p2026_07']);
    expect(run.kept).toEqual([
      { partition: 'webhook_delivery_p2026_06', reason: 'pending_delivery' },
    ]);
    expect(repo.partitions.has('webhook_attempt_p2026_06')).toBe(true);
    expect(repo.partitions.has('webhook_delivery_p2026_10')).toBe(true);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({
        partition: 'webhook_delivery_p2026_06',
        reason: 'pending_delivery',
      }),
      expect.stringContaining('a webhook delivery in it is still pending'),
    );
  });

  it('one run an hour: a second worker asking in the same hour does nothing', async () => {
    const { service } = setUp();
    expect(await service.runHour(now)).not.toBeNull();
    expect(await service.runHour(at('2026-11-26T16:59:59Z'))).toBeNull();
    expect(await service.runHour(at('2026-11-26T17:00:00Z'))).not.toBeNull();
  });

  it('reports each class: its setting, partitions and next drop', async () => {
    const { service } = setUp();
    await service.upkeep(now);
    const report = await service.report();
    expect(report.map((c) => [c.class, c.setting, c.partitioned])).toEqual([
      ['transactions', { value: 25, unit: 'months' }, false],
      ['engagement_events', { value: 13, unit: 'months' }, true],
      ['webhook_attempts', { value: 90, unit: 'days' }, false],
      ['webhook_deliveries', { value: 90, unit: 'days' }, false],
    ]);
    const events = report[1];
    expect(events.oldestKeptAt).toEqual(at('2025-10-01T00:00:00Z'));
    expect(events.nextDrop).toEqual({
      partition: 'engagement_event_p2025_10',
      at: at('2026-12-01T00:00:00Z'),
    });
    expect(report[0]).toMatchObject({ partitions: [], oldestKeptAt: null, nextDrop: null });
  });
});
