import { DataSource } from 'typeorm';
import { prepared } from '@app/db';
import type { WebhookErrorClass } from '@app/domain';
import { GroupCommitter } from '../group-commit';
import { byDelivery } from './by-delivery';
import { attemptsOfDelivery, deliveryById, ON_KEY } from './delivery-key';
import { alertsSql, PausedAlert, WebhookAlertsRepository } from './webhook-alerts.repository';

/**
 * The attempt log and the outcome it gives its delivery: one statement writes the attempt row, the
 * delivery's new state (delivered, next attempt, failed) and its alerts, and only while the
 * attempt's lease is still the writer's. Outcomes of concurrent attempts are written together
 * (group commit).
 */

export interface AttemptRecord {
  deliveryId: string;
  token: string;
  /** delivered | retry (pending with a next attempt) | failed (final, unless delivered before). */
  outcome: 'delivered' | 'retry' | 'failed';
  trigger: 'automatic' | 'manual';
  startedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  errorClass: WebhookErrorClass | null;
  errorMessage: string | null;
  responseExcerpt: string | null;
  url: string | null;
  nextAttemptAt: Date | null;
  statusReason: string | null;
  /** Inbox message body when the institution is to be alerted (written once per delivery). */
  alertBody: string | null;
  /** The headers sent, signatures shortened (null when nothing was sent by this worker). */
  requestHeaders?: Record<string, string> | null;
}

export interface RecordResult {
  recorded: boolean;
  attemptNumber: number | null;
  status: string | null;
}

const RECORD_SQL = prepared(`
WITH r AS (
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[], $6::int[], $7::int[], $8::text[],
                       $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::text[], $14::text[], $15::jsonb[])
    AS x(id, token, outcome, trigger, started_at, duration_ms, http_status, error_class, error_message, excerpt, url, next_at, reason, alert_body,
         request_headers)
), d AS (
  UPDATE webhook_delivery d
     SET attempt_count = d.attempt_count + 1,
         series_attempt_count = d.series_attempt_count + 1,
         status = CASE WHEN r.outcome = 'delivered' OR d.delivered_at IS NOT NULL THEN 'delivered'
                       WHEN r.outcome = 'retry' THEN 'pending' ELSE 'failed' END,
         delivered_at = CASE WHEN r.outcome = 'delivered' THEN COALESCE(d.delivered_at, now()) ELSE d.delivered_at END,
         next_attempt_at = CASE WHEN d.delivered_at IS NULL THEN r.next_at END,
         enqueued_at = CASE WHEN r.outcome = 'retry' THEN now() ELSE d.enqueued_at END,
         last_attempt_at = r.started_at,
         status_reason = CASE WHEN d.delivered_at IS NOT NULL THEN d.status_reason ELSE r.reason END,
         lease_token = NULL, lease_until = NULL, lease_started_at = NULL, lease_url = NULL
    FROM r JOIN webhook_delivery_key k ON k.id = r.id
   WHERE ${ON_KEY} AND d.lease_token = r.token
  RETURNING d.id, d.institution_id, d.attempt_count, d.status, d.created_at
), a AS (
  INSERT INTO webhook_attempt (delivery_id, attempt_number, trigger, url, started_at, duration_ms, http_status,
                               error_class, error_message, response_excerpt, request_headers,
                               institution_id, delivery_created_at)
  SELECT d.id, d.attempt_count, r.trigger, r.url, r.started_at, r.duration_ms, r.http_status, r.error_class,
         r.error_message, r.excerpt, r.request_headers, d.institution_id, d.created_at
    FROM d JOIN r ON r.id = d.id
)${alertsSql(16) /* its parameters follow the records' 15 */}
SELECT id, attempt_count, status,
       (SELECT json_agg(json_build_object('institutionId', institution_id, 'title', title, 'body', body)) FROM pa) AS paused
  FROM d`);

export class WebhookAttemptsRepository {
  private readonly records: GroupCommitter<AttemptRecord, RecordResult>;

  constructor(
    private readonly db: DataSource,
    private readonly alerts: WebhookAlertsRepository,
  ) {
    this.records = new GroupCommitter((items) => this.recordBatch(items), {
      maxBatch: 200,
      maxInFlight: 3,
    });
  }

  /** Writes an attempt's outcome (attempt row, delivery state, alerts) if the lease is still ours. */
  record(rec: AttemptRecord): Promise<RecordResult> {
    return this.records.submit(rec);
  }

  private async recordBatch(items: AttemptRecord[]): Promise<RecordResult[]> {
    const missing: RecordResult = { recorded: false, attemptNumber: null, status: null };
    return byDelivery(
      items,
      async (u) => {
        const rows: {
          id: string;
          attempt_count: number;
          status: string;
          paused: PausedAlert[] | null;
        }[] = await this.db.query(RECORD_SQL, [
          u.map((i) => i.deliveryId),
          u.map((i) => i.token),
          u.map((i) => i.outcome),
          u.map((i) => i.trigger),
          u.map((i) => i.startedAt.toISOString()),
          u.map((i) => i.durationMs),
          u.map((i) => i.httpStatus),
          u.map((i) => i.errorClass),
          u.map((i) => i.errorMessage),
          u.map((i) => i.responseExcerpt),
          u.map((i) => i.url),
          u.map((i) => i.nextAttemptAt?.toISOString() ?? null),
          u.map((i) => i.statusReason),
          u.map((i) => i.alertBody),
          u.map((i) => (i.requestHeaders ? JSON.stringify(i.requestHeaders) : null)),
          ...this.alerts.params(),
        ]);
        // Every row carries the same list: the pauses this statement made.
        this.alerts.paused(rows[0]?.paused ?? []);
        return new Map(
          rows.map((r) => [
            r.id,
            { recorded: true, attemptNumber: r.attempt_count, status: r.status },
          ]),
        );
      },
      missing,
    );
  }

  /**
   * A 2xx that arrived after its lease was taken over (the worker stalled past it; the claimant
   * logged the attempt as interrupted and scheduled the next one). The receiver has the event, so
   * the acknowledgement wins: the attempt's log row gets its real outcome and the delivery is
   * `delivered`, which turns the next attempt's job into a no-op. A lease another attempt holds now
   * is left alone: its outcome keeps the delivery `delivered` (see RECORD_SQL).
   */
  async recordLateAcknowledgement(
    rec: AttemptRecord,
    series: number,
    attemptNumber: number,
  ): Promise<boolean> {
    const rows: { id: string }[] = await this.db.query(
      prepared(`WITH d AS (
         UPDATE webhook_delivery d
            SET status = 'delivered', delivered_at = COALESCE(d.delivered_at, now()), next_attempt_at = NULL,
                status_reason = NULL
          WHERE ${deliveryById('d', '$1::uuid')} AND d.redelivery_count = $2 AND d.status IN ('pending', 'failed')
          RETURNING d.id
       ), a AS (
         UPDATE webhook_attempt a
            SET started_at = $4, duration_ms = $5, http_status = $6, error_class = NULL, url = $7,
                error_message = 'recorded after its lease had been taken over', response_excerpt = $8,
                request_headers = $9
          WHERE ${attemptsOfDelivery('a', '$1::uuid')} AND a.attempt_number = $3
       )
       SELECT id FROM d`),
      [
        rec.deliveryId,
        series,
        attemptNumber,
        rec.startedAt.toISOString(),
        rec.durationMs,
        rec.httpStatus,
        rec.url,
        rec.responseExcerpt,
        rec.requestHeaders ? JSON.stringify(rec.requestHeaders) : null,
      ],
    );
    return rows.length > 0;
  }
}
