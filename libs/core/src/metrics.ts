import { Counter, Histogram, register } from 'prom-client';

/**
 * Business metrics on /metrics (the api's for ingestion, the worker's for matching), registered
 * once per process so several app instances in one process (tests) share them.
 */
function counter(name: string, help: string, labelNames: string[]): Counter<string> {
  return (
    (register.getSingleMetric(name) as Counter<string> | undefined) ??
    new Counter({ name, help, labelNames })
  );
}

function histogram(name: string, help: string, buckets: number[]): Histogram<string> {
  return (
    (register.getSingleMetric(name) as Histogram<string> | undefined) ??
    new Histogram({ name, help, buckets })
  );
}

/** Transactions written by ingestion: accepted (new), duplicate (reference known), failed. */
export const ingestedTransactions = () =>
  counter(
    'transactions_ingested_total',
    'Transactions received by source (api, batch, csv) and result (accepted, duplicate, failed)',
    ['source', 'result'],
  );

/** Transactions decided by matching, by result. */
export const matchedTransactions = () =>
  counter(
    'matching_transactions_total',
    'Transactions processed by matching: matched, goal_counted, unmatched, merchant_unresolved, refund',
    ['result'],
  );

export const matchingChunkSeconds = () =>
  histogram(
    'matching_chunk_duration_seconds',
    'Time to match one chunk of transactions',
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );

/** Hourly data-lifecycle runs (partition upkeep and retention), by result (ok, failed). */
export const dataLifecycleRuns = () =>
  counter(
    'data_lifecycle_runs_total',
    'Partition upkeep and retention runs, by result (ok, failed)',
    ['result'],
  );

/** Partitions created ahead, dropped by retention, or kept past retention (and why). */
export const partitionChanges = () =>
  counter(
    'data_lifecycle_partitions_total',
    'Partitions by table and action: created, dropped, kept_legal_hold, kept_locked, kept_pending_delivery',
    ['table', 'action'],
  );
