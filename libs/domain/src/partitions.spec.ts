import {
  expiredPartitions,
  expiresAt,
  lifecycleTick,
  nextDrop,
  partitionName,
  partitionOf,
  partitionsAhead,
  partitionsCovering,
  partitionsWanted,
  retentionCutoff,
} from './partitions';

const at = (iso: string) => new Date(iso);
const months = (value: number) => ({ value, unit: 'months' as const });
const days = (value: number) => ({ value, unit: 'days' as const });

describe('monthly partitions', () => {
  it('a partition is a UTC calendar month, named <table>_pYYYY_MM', () => {
    expect(partitionOf('engagement_event', at('2026-11-30T23:59:59.999Z'))).toEqual({
      name: 'engagement_event_p2026_11',
      from: at('2026-11-01T00:00:00Z'),
      to: at('2026-12-01T00:00:00Z'),
    });
    expect(partitionName('t', at('2027-01-01T00:00:00Z'))).toBe('t_p2027_01');
  });

  it('the current month and the next two exist ahead, across a year end', () => {
    expect(partitionsAhead('t', at('2026-11-26T16:00:00Z')).map((p) => p.name)).toEqual([
      't_p2026_11',
      't_p2026_12',
      't_p2027_01',
    ]);
  });

  it('every month a row may be kept in exists: from the retention cutoff’s month to two ahead', () => {
    const wanted = partitionsWanted('t', at('2026-11-26T16:00:00Z'), months(13));
    expect(wanted.map((p) => p.name)).toEqual([
      't_p2025_10',
      't_p2025_11',
      't_p2025_12',
      ...Array.from({ length: 12 }, (_, i) => `t_p2026_${String(i + 1).padStart(2, '0')}`),
      't_p2027_01',
    ]);
    // None of them is expired, and the month before the first is.
    const now = at('2026-11-26T16:00:00Z');
    expect(expiredPartitions(wanted, months(13), now)).toEqual([]);
    expect(
      expiredPartitions([partitionOf('t', at('2025-09-15T00:00:00Z'))], months(13), now),
    ).toHaveLength(1);
    expect(partitionsWanted('t', now, days(90))[0].name).toBe('t_p2026_08');
  });

  it('the months covering a range include both ends', () => {
    expect(
      partitionsCovering('t', at('2025-12-31T23:00:00Z'), at('2026-02-01T00:00:00Z')).map(
        (p) => p.name,
      ),
    ).toEqual(['t_p2025_12', 't_p2026_01', 't_p2026_02']);
  });
});

describe('retention', () => {
  it('a partition may go once every row it can hold is older than kept', () => {
    const nov = partitionOf('t', at('2025-11-10T00:00:00Z'));
    expect(expiresAt(nov, months(13))).toEqual(at('2027-01-01T00:00:00Z'));
    expect(expiresAt(nov, days(90))).toEqual(at('2026-03-01T00:00:00Z'));
  });

  it('drops the expired partitions only, oldest first', () => {
    const ps = ['2024-12-05', '2025-02-05', '2024-11-05', '2025-11-05'].map((d) =>
      partitionOf('t', at(`${d}T00:00:00Z`)),
    );
    expect(
      expiredPartitions(ps, months(13), at('2026-02-01T00:00:00Z')).map((p) => p.name),
    ).toEqual(['t_p2024_11', 't_p2024_12']);
    // The boundary itself: at the expiry instant the partition may go.
    expect(
      expiredPartitions(ps, months(13), at('2026-01-31T23:59:59Z')).map((p) => p.name),
    ).toEqual(['t_p2024_11']);
  });

  it('the next drop is the oldest partition at its expiry; none without partitions', () => {
    const ps = [
      partitionOf('t', at('2026-03-01T00:00:00Z')),
      partitionOf('t', at('2026-01-09T00:00:00Z')),
    ];
    expect(nextDrop(ps, days(90))).toEqual({
      partition: 't_p2026_01',
      at: at('2026-05-02T00:00:00Z'),
    });
    expect(nextDrop([], days(90))).toBeNull();
  });

  it('the cutoff is the same day of an earlier month, clamped to a shorter month', () => {
    expect(retentionCutoff(at('2026-11-26T16:00:00Z'), months(13))).toEqual(
      at('2025-10-26T16:00:00Z'),
    );
    expect(retentionCutoff(at('2026-03-31T12:00:00Z'), months(1))).toEqual(
      at('2026-02-28T12:00:00Z'),
    );
    expect(retentionCutoff(at('2026-11-26T00:00:00Z'), days(90))).toEqual(
      at('2026-08-28T00:00:00Z'),
    );
  });

  it('one data-lifecycle run per UTC hour', () => {
    expect(lifecycleTick(at('2026-11-26T16:42:17.5Z'))).toEqual(at('2026-11-26T16:00:00Z'));
  });
});
