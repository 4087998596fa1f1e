/**
 * Monthly time partitions and retention (docs/retention.md). Partitions are UTC calendar months,
 * named `<table>_pYYYY_MM`; a partition leaves only as a whole, once every row it can hold is
 * older than its data class keeps.
 */

/** The data classes retention speaks of, with the table each lives in. */
export const DATA_CLASSES = [
  { name: 'transactions', table: 'transaction' },
  { name: 'engagement_events', table: 'engagement_event' },
  { name: 'webhook_attempts', table: 'webhook_attempt' },
  { name: 'webhook_deliveries', table: 'webhook_delivery' },
] as const;
export type DataClass = (typeof DATA_CLASSES)[number]['name'];

/**
 * The tables that are partitioned by month, the column each is partitioned by, and its class. A
 * table that `follows` another is partitioned by its leader's time (webhook attempts by their
 * delivery's month): its months are created, moved and dropped with the leader's, never alone.
 * `parallel`: a month may be scanned by parallel workers (the lift report reads a month's
 * purchases whole); the others are read by index ranges, where a parallel plan only adds start-up
 * time, so their months are created with parallel_workers = 0.
 * `fillfactor`: the share of each page a month's inserts fill; transaction's months leave half
 * free, so matching's write of a row's outcome fits on the row's page (a HOT update: no index
 * entry, docs/performance.md).
 */
export const PARTITIONED_TABLES: readonly {
  table: 'engagement_event' | 'webhook_delivery' | 'webhook_attempt' | 'transaction';
  key: string;
  class: DataClass;
  follows?: 'webhook_delivery';
  parallel?: true;
  fillfactor?: number;
}[] = [
  { table: 'engagement_event', key: 'occurred_at', class: 'engagement_events' },
  { table: 'webhook_delivery', key: 'created_at', class: 'webhook_deliveries' },
  {
    table: 'webhook_attempt',
    key: 'delivery_created_at',
    class: 'webhook_attempts',
    follows: 'webhook_delivery',
  },
  // received_at, not transacted_at: the service stamps it, so every insert has its month
  // (docs/retention.md); transaction_key keeps the reference's idempotency past retention.
  {
    table: 'transaction',
    key: 'received_at',
    class: 'transactions',
    parallel: true,
    fillfactor: 50,
  },
];
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number]['table'];

/** The tables whose months go with `table`'s (same month, same transaction). */
export function followersOf(table: string): PartitionedTable[] {
  return PARTITIONED_TABLES.filter((t) => t.follows === table).map((t) => t.table);
}

/** Months the worker keeps created beyond the current one (at least two periods ahead). */
export const PARTITION_MONTHS_AHEAD = 2;

export type RetentionUnit = 'months' | 'days';
export interface RetentionSetting {
  value: number;
  unit: RetentionUnit;
}

/** One partition: its table's name and the range [from, to) it holds. */
export interface Partition {
  name: string;
  from: Date;
  to: Date;
}

/** The first instant of the UTC month of `at`. */
export function monthOf(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** The UTC month `n` months after the month starting at `month`. */
export function addMonths(month: Date, n: number): Date {
  return new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + n, 1));
}

/** `engagement_event_p2026_11` for November 2026. */
export function partitionName(table: string, month: Date): string {
  const mm = String(month.getUTCMonth() + 1).padStart(2, '0');
  return `${table}_p${month.getUTCFullYear()}_${mm}`;
}

/** The monthly partition of `table` that holds `at`. */
export function partitionOf(table: string, at: Date): Partition {
  const from = monthOf(at);
  return { name: partitionName(table, from), from, to: addMonths(from, 1) };
}

/** The current month and the next `ahead` at `now`. */
export function partitionsAhead(
  table: string,
  now: Date,
  ahead = PARTITION_MONTHS_AHEAD,
): Partition[] {
  return Array.from({ length: ahead + 1 }, (_, i) =>
    partitionOf(table, addMonths(monthOf(now), i)),
  );
}

/**
 * The partitions that must exist at `now`: every month a row may still be kept in (from the month
 * of the retention cutoff, the oldest that is not expired) through `ahead` months after the
 * current one. Retention never drops one of these, and a row of any kept moment has its partition.
 */
export function partitionsWanted(
  table: string,
  now: Date,
  keep: RetentionSetting,
  ahead = PARTITION_MONTHS_AHEAD,
): Partition[] {
  return partitionsCovering(
    table,
    retentionCutoff(now, keep),
    partitionsAhead(table, now, ahead)[ahead].from,
  );
}

/** The monthly partitions covering [first, last] (both instants included). */
export function partitionsCovering(table: string, first: Date, last: Date): Partition[] {
  const out: Partition[] = [];
  for (let m = monthOf(first); m <= last; m = addMonths(m, 1)) out.push(partitionOf(table, m));
  return out;
}

/** The instant before which a class's data is no longer kept at `now`. */
export function retentionCutoff(now: Date, keep: RetentionSetting): Date {
  if (keep.unit === 'days') return new Date(now.getTime() - keep.value * 86_400_000);
  const d = new Date(now);
  d.setUTCMonth(d.getUTCMonth() - keep.value);
  // 31 March less one month is 3 March in JavaScript: clamp to the month's last day instead.
  if (d.getUTCDate() !== now.getUTCDate()) d.setUTCDate(0);
  return d;
}

/** The moment when every row `p` can hold is older than kept: the earliest it may be dropped. */
export function expiresAt(p: Partition, keep: RetentionSetting): Date {
  if (keep.unit === 'days') return new Date(p.to.getTime() + keep.value * 86_400_000);
  return addMonths(p.to, keep.value);
}

/** Whether a partition may be dropped at `now` (every row it can hold is past retention). */
export function isExpired(p: Partition, keep: RetentionSetting, now: Date): boolean {
  return expiresAt(p, keep) <= now;
}

/** The partitions past retention at `now`, oldest first. */
export function expiredPartitions(
  partitions: Partition[],
  keep: RetentionSetting,
  now: Date,
): Partition[] {
  return [...partitions]
    .sort((a, b) => a.from.getTime() - b.from.getTime())
    .filter((p) => isExpired(p, keep, now));
}

/** The next partition to go and when (the oldest partition's expiry), or null without partitions. */
export function nextDrop(
  partitions: Partition[],
  keep: RetentionSetting,
): { partition: string; at: Date } | null {
  const oldest = [...partitions].sort((a, b) => a.from.getTime() - b.from.getTime())[0];
  return oldest ? { partition: oldest.name, at: expiresAt(oldest, keep) } : null;
}

/** The hour a data-lifecycle run belongs to: one run per hour across every worker. */
export function lifecycleTick(now: Date): Date {
  const t = new Date(now);
  t.setUTCMinutes(0, 0, 0);
  return t;
}
