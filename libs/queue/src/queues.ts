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
  maintenance: 'maintenance',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Match a chunk of committed transactions (up to MATCH_CHUNK ids). */
export interface MatchJob {
  transactionIds: string[];
  requestId?: string;
}
export const MATCH_CHUNK = 1_000;

export interface WebhookJob {
  deliveryId: string;
  /** 'automatic' for the scheduled series, 'manual' for a portal redelivery. */
  trigger: 'automatic' | 'manual';
  requestId?: string;
}

export interface SettlementJob {
  asOf?: string;
  trigger: 'schedule' | 'operator';
}

export interface CsvJob {
  uploadId: string;
  requestId?: string;
}

/** Stable job ids. BullMQ refuses ':' in custom ids. */
export const jobIds = {
  match: (firstTransactionId: string) => `match-${firstTransactionId}`,
  webhook: (deliveryId: string, series: number, attempt: number) => `wh-${deliveryId}-r${series}-a${attempt}`,
  csv: (uploadId: string) => `csv-${uploadId}`,
};
