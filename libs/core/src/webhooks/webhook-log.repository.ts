import { DataSource } from 'typeorm';
import { attemptsOfDelivery, deliveryById } from './delivery-key';

/**
 * The delivery log as staff read it (portal and operators): one institution's deliveries with
 * their attempts, searched and keyset-paged, and the dashboard's hourly outcomes. Reads only.
 */

/** A delivery as the portal lists it (`cursor_t`: created_at with microseconds, for the keyset). */
export interface DeliveryRow {
  id: string;
  event: string;
  status: string;
  status_reason: string | null;
  redemption_id: string | null;
  attempt_count: number;
  redelivery_count: number;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  payload?: Record<string, unknown>;
  cursor_t: string;
}

export interface DeliverySearch {
  status?: string;
  event?: string;
  id?: string;
  redemptionId?: string;
  offerId?: string;
  from?: string;
  to?: string;
  after?: { t: string; id: string } | null;
  limit: number;
}

export interface AttemptRow {
  attempt_number: number;
  trigger: string;
  url: string | null;
  started_at: Date;
  duration_ms: number;
  http_status: number | null;
  error_class: string | null;
  error_message: string | null;
  response_excerpt: string | null;
  request_headers: Record<string, string> | null;
}

const DELIVERY_COLUMNS = `id, event, status, status_reason, redemption_id, attempt_count, redelivery_count, created_at,
  last_attempt_at, next_attempt_at, delivered_at, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_t`;

export class WebhookLogRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * One institution's deliveries, newest first, keyset-paged on (created_at, id), filtered by any of
   * status, event, delivery id, redemption id, offer id and a created_at range. Indexes:
   * webhook_delivery_report_idx, _status_idx, _event_idx, _offer_idx (all lead with institution_id).
   */
  async listDeliveries(institutionId: string, q: DeliverySearch): Promise<DeliveryRow[]> {
    const params: unknown[] = [institutionId, q.limit];
    let where = 'institution_id = $1';
    const add = (sql: string, value: unknown) => {
      where += ` AND ${sql.replace('?', `$${params.push(value)}`)}`;
    };
    if (q.status) add('status = ?', q.status);
    if (q.event) add('event = ?', q.event);
    // By id: the delivery's month from webhook_delivery_key.
    if (q.id) {
      add(
        'created_at = (SELECT k.created_at FROM webhook_delivery_key k WHERE k.id = ?::uuid)',
        q.id,
      );
      add('id = ?::uuid', q.id);
    }
    if (q.redemptionId) add('redemption_id = ?::uuid', q.redemptionId);
    if (q.offerId) add("payload->>'offer_id' = ?", q.offerId);
    if (q.from) add('created_at >= ?::timestamptz', q.from);
    if (q.to) add('created_at < ?::timestamptz', q.to);
    if (q.after)
      where += ` AND (created_at, id) < ($${params.push(q.after.t)}::timestamptz, $${params.push(q.after.id)}::uuid)`;
    return this.db.query(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_delivery WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $2`,
      params,
    );
  }

  /** Deliveries delivered and failed per hour of their last attempt, over the last `hours`. */
  async hourlyOutcomes(
    institutionId: string,
    hours: number,
  ): Promise<{ hour: Date; delivered: number; failed: number }[]> {
    return this.db.query(
      `SELECT date_trunc('hour', last_attempt_at) AS hour,
              count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
              count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM webhook_delivery
        WHERE institution_id = $1 AND status IN ('delivered', 'failed')
          AND last_attempt_at >= date_trunc('hour', now()) - make_interval(hours => $2::int - 1)
        GROUP BY 1 ORDER BY 1`,
      [institutionId, hours],
    );
  }

  /** One delivery of this institution with its payload and attempts; null when not found. */
  async findDelivery(
    institutionId: string,
    id: string,
  ): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] } | null> {
    const [delivery]: DeliveryRow[] = await this.db.query(
      `SELECT ${DELIVERY_COLUMNS}, payload FROM webhook_delivery d
        WHERE ${deliveryById('d', '$1::uuid')} AND d.institution_id = $2`,
      [id, institutionId],
    );
    if (!delivery) return null;
    const attempts: AttemptRow[] = await this.db.query(
      `SELECT attempt_number, trigger, url, started_at, duration_ms, http_status, error_class, error_message, response_excerpt,
              request_headers
         FROM webhook_attempt a WHERE ${attemptsOfDelivery('a', '$1::uuid')} ORDER BY attempt_number`,
      [id],
    );
    return { delivery, attempts };
  }
}
