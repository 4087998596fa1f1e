/**
 * Jobs of the portal (issue 7): CSV imports and API-key expiry reminders. Kept apart from
 * queues.ts so each feature owns its contract; names of the queues themselves are in QUEUES.
 */

export const CSV_JOB_NAME = 'import';

/**
 * A CSV import commits chunk by chunk and resumes from its last committed row, so a retry after a
 * crash or a lost connection never double-counts. Completed jobs are kept an hour (a re-enqueue
 * by the relay with the same id is then ignored), failed ones a week.
 */
export const CSV_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 1_000 },
  removeOnFail: { age: 7 * 86_400 },
} as const;

/** The worker's relay: uploads stored but not queued (Redis was down) or stranded mid-way. */
export const CSV_RELAY_SCHEDULER_ID = 'csv-relay';
export const CSV_RELAY_JOB_NAME = 'relay';

/** Key-expiry reminders: one scheduled sweep (14, 3 and 0 days before expiry, each sent once). */
export const KEY_REMINDER_SCHEDULER_ID = 'key-expiry-reminders';
export const KEY_REMINDER_JOB_NAME = 'sweep';
export const KEY_REMINDER_DAYS = [14, 3, 0] as const;
