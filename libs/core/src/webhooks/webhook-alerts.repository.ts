import { DataSource } from 'typeorm';
import { returnedRows } from '@app/db';
import { WEBHOOK_MESSAGES } from './webhook-messages';
import { StepRef, WebhookScheduleRepository } from './webhook-schedule.repository';

/** A URL an attempt's record paused, with the inbox alert it wrote (e-mailed where SMTP is set). */
export interface PausedAlert {
  institutionId: string;
  title: string;
  body: string;
}

/**
 * What an attempt's outcome tells the institution, as CTEs of the statement that records it (so
 * the alert commits with the outcome and is written once): the `webhook.failed` inbox message of a
 * delivery that failed for good, and the failing streak: a 2xx ends it, a failure starts it, and a
 * streak older than the pause threshold pauses the URL once, with a `webhook.paused` message.
 * Reads the CTEs `d` (the deliveries updated: id, institution_id) and `r` (the records: id,
 * outcome, started_at, alert_body); defines `pa` (the pauses: institution_id, title, body).
 * Its parameters are alertParams(), numbered from `first`.
 */
export function alertsSql(first: number): string {
  const [pauseAfterMs, failedTitle, pausedTitle, pausedBody] = [0, 1, 2, 3].map(
    (i) => `$${first + i}`,
  );
  return `
, m AS (
  INSERT INTO inbox_message (institution_id, kind, title, body, dedupe_key)
  SELECT d.institution_id, 'webhook.failed', ${failedTitle}::text, r.alert_body, 'webhook.failed:' || d.id
    FROM d JOIN r ON r.id = d.id
   WHERE r.alert_body IS NOT NULL
  ON CONFLICT (institution_id, dedupe_key) DO NOTHING
), streak AS (
  SELECT i.id, x.ok, COALESCE(i.webhook_failing_since, x.first_fail) AS since, i.webhook_failing_since AS old_since,
         i.webhook_disabled_at AS old_disabled
    FROM (SELECT d.institution_id, bool_or(r.outcome = 'delivered') AS ok,
                 min(r.started_at) FILTER (WHERE r.outcome <> 'delivered') AS first_fail
            FROM d JOIN r ON r.id = d.id GROUP BY d.institution_id) x
    JOIN institution i ON i.id = x.institution_id
), chg AS (
  SELECT id, CASE WHEN ok THEN NULL ELSE since END AS new_since,
         (NOT ok AND old_disabled IS NULL AND since <= now() - make_interval(secs => ${pauseAfterMs}::float8 / 1000)) AS pause,
         old_since
    FROM streak
), inst AS (
  UPDATE institution i
     SET webhook_failing_since = chg.new_since,
         webhook_disabled_at = CASE WHEN chg.pause THEN now() ELSE i.webhook_disabled_at END
    FROM chg
   WHERE i.id = chg.id AND (chg.old_since IS DISTINCT FROM chg.new_since OR chg.pause)
), pa AS (
  INSERT INTO inbox_message (institution_id, kind, title, body, dedupe_key)
  SELECT chg.id, 'webhook.paused', ${pausedTitle}::text,
         replace(${pausedBody}::text, '{since}', to_char(chg.new_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')),
         'webhook.paused:' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')
    FROM chg WHERE chg.pause
  ON CONFLICT (institution_id, dedupe_key) DO NOTHING
  RETURNING institution_id, title, body
)`;
}

/**
 * Alerting: an institution is told when a delivery fails for good and when its URL, failing for
 * WEBHOOK_DISABLE_AFTER_DAYS, is paused (statements composed into the attempt's record by
 * alertsSql); resuming ends the pause.
 */
export class WebhookAlertsRepository {
  private readonly pauseListeners: ((alert: PausedAlert) => void)[] = [];

  constructor(
    private readonly db: DataSource,
    private readonly schedule: WebhookScheduleRepository,
    /** A URL failing for this long is paused (WEBHOOK_DISABLE_AFTER_DAYS). */
    private readonly pauseAfterMs = 3 * 86_400_000,
  ) {}

  /** alertsSql's parameters. */
  params(): unknown[] {
    const { failed, paused } = WEBHOOK_MESSAGES;
    return [this.pauseAfterMs, failed.title, paused.title, paused.body];
  }

  /** Called after the commit of each pause an attempt's record made (the worker e-mails it). */
  onPaused(fn: (alert: PausedAlert) => void): void {
    this.pauseListeners.push(fn);
  }

  /** The pauses a committed record statement made (its `pa` rows). */
  paused(alerts: readonly PausedAlert[]): void {
    for (const alert of alerts) for (const fn of this.pauseListeners) fn(alert);
  }

  /**
   * Resumes a paused URL: the pause and the failing streak end, and the institution's pending
   * deliveries are returned oldest first, as the steps to queue. Null when the URL was not paused.
   */
  async resume(institutionId: string): Promise<StepRef[] | null> {
    return this.db.transaction(async (m) => {
      const rows = returnedRows(
        await m.query(
          `UPDATE institution SET webhook_disabled_at = NULL, webhook_failing_since = NULL, updated_at = now()
            WHERE id = $1 AND webhook_disabled_at IS NOT NULL RETURNING id`,
          [institutionId],
        ),
      );
      if (!rows.length) return null;
      const pending = await this.schedule.duePending(m, institutionId);
      // A little apart (250 ms, less for a long list: all within 10 s), so that the attempts start
      // in creation order even on a busy worker.
      const gap = Math.min(250, 10_000 / Math.max(1, pending.length));
      const now = Date.now();
      return pending.map(({ createdAt: _c, ...step }, i) => ({
        ...step,
        nextAttemptAt: new Date(now + i * gap),
      }));
    });
  }
}
