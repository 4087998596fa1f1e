/**
 * Queue names and job payloads: the contract between apps/api (producers) and apps/worker
 * (consumers). Job ids are derived from business keys so that a re-enqueue is a no-op
 * while BullMQ still holds the job, and never contain ':'.
 */
export const QUEUES = {
  matching: 'matching',
  webhooks: 'webhooks',
  settlement: 'settlement',
  csv: 'csv-import',
  reminders: 'key-reminders',
  privacy: 'privacy',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Match a chunk of committed transactions (up to MATCH_CHUNK ids). */
export interface MatchJob {
  transactionIds: string[];
  /** The requests that posted them (a group-committed chunk of single posts carries several). */
  requestIds?: string[];
  /** 'ingest' when enqueued after commit by the api, 'relay' when re-enqueued by the worker's relay. */
  /** 'split' for a half of a chunk that kept failing, 'retry' for an operator's retry of quarantined rows. */
  origin?: 'ingest' | 'relay' | 'split' | 'retry';
}
export const MATCH_CHUNK = 1_000;
export const MATCH_JOB_NAME = 'match';

/**
 * Matching jobs: retried with backoff (a deadlock or a lost connection is transient); completed
 * jobs are kept a few minutes so a re-enqueue with the same id is ignored meanwhile; failed ones
 * a week for inspection (the transactions stay `received` and the relay retries them).
 */
export const MATCH_JOB_OPTIONS = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 300, count: 5_000 },
  removeOnFail: { age: 7 * 86_400 },
} as const;

/**
 * Halves of a chunk that failed every attempt: the transient causes had their retries at the
 * parent, so a half gets one retry before it is split again (a 1,000-id chunk reaches its single
 * offending transaction in about ten quick levels instead of ten full backoff series).
 */
export const MATCH_SPLIT_ATTEMPTS = 2;

/** The settlement run's job scheduler (cron pattern from SETTLEMENT_SCHEDULE). */
export const SETTLEMENT_SCHEDULER_ID = 'settlement-run';
export const SETTLEMENT_JOB_NAME = 'settle';

export interface WebhookJob {
  deliveryId: string;
  /** 'automatic' for the scheduled series, 'manual' for a portal redelivery. */
  trigger: 'automatic' | 'manual';
  /** The delivery's redelivery_count this job belongs to (0 = the automatic series). */
  series: number;
  /** The attempt's number within its series (1..9 automatic; 1 for a redelivery). */
  attempt: number;
  requestId?: string;
}
export const WEBHOOK_JOB_NAME = 'deliver';

/**
 * One job per attempt; the retry schedule lives in the delivery engine (next attempt = a new
 * delayed job), not in BullMQ's own retries, which only cover a failure of the job itself
 * (database unreachable). Finished jobs are removed at once: a re-enqueue of a step already
 * done runs and finds nothing to do (the row says so), while one still waiting or delayed is
 * deduplicated by its id. Failed jobs stay an hour for inspection; the relay re-enqueues the
 * delivery after that.
 */
export const WEBHOOK_JOB_OPTIONS = {
  attempts: 12,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: true,
  removeOnFail: { age: 3_600 },
} as const;

export interface SettlementJob {
  asOf?: string;
  trigger: 'schedule' | 'operator';
}

export interface CsvJob {
  uploadId: string;
  requestId?: string;
}

/** Erase a cardholder (docs/privacy.md): the job names the erasure only, never the token. */
export interface ErasureJob {
  erasureId: string;
  requestId?: string;
}
export const ERASURE_JOB_NAME = 'erase';

/**
 * An erasure is one transaction that finds its row still pending (or does nothing), so a second
 * run is harmless. Finished jobs are removed at once: the worker's relay enqueues an erasure that
 * waits for a pending delivery again when it is due, under the same id. Failed ones stay a day.
 */
export const ERASURE_JOB_OPTIONS = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: true,
  removeOnFail: { age: 86_400 },
} as const;

/** Stable job ids. BullMQ refuses ':' in custom ids. */
export const jobIds = {
  match: (firstTransactionId: string) => `match-${firstTransactionId}`,
  /**
   * The relay re-enqueues the oldest stuck rows. The pass's minute is part of the id, so a row that
   * stays stuck cannot make later passes' jobs (and the rows behind it) count as duplicates of a
   * retained one; a job run twice matches nothing twice (rows are claimed with SKIP LOCKED).
   */
  rematch: (firstTransactionId: string, passMinute = Math.floor(Date.now() / 60_000)) =>
    `rematch-${firstTransactionId}-m${passMinute}`,
  /** Halves of a chunk that kept failing, so one bad row cannot hold back a thousand. */
  split: (parentJobId: string, half: 'a' | 'b') => `${parentJobId}-${half}`,
  /** An operator's retry of quarantined (match_failed) transactions. */
  retry: (firstTransactionId: string, at = Date.now()) => `retry-${firstTransactionId}-${at}`,
  webhook: (deliveryId: string, series: number, attempt: number) =>
    `wh-${deliveryId}-r${series}-a${attempt}`,
  csv: (uploadId: string) => `csv-${uploadId}`,
  erasure: (erasureId: string) => `erasure-${erasureId}`,
};
