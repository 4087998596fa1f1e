import { randomUUID } from 'crypto';
import { DataSource, EntityManager } from 'typeorm';
import { returnedRows } from '@app/db';
import type { WebhookErrorClass } from '@app/domain';
import { GroupCommitter } from '../group-commit';

/**
 * The delivery rows' state changes, all in SQL and all conditional on the step they belong to, so
 * a duplicate or late job can never act twice. Claims and outcomes of concurrent attempts are
 * written together (group commit): one statement and one commit for many attempts.
 */

export interface ClaimRequest {
  deliveryId: string;
  series: number;
  attempt: number;
}

export interface ClaimedDelivery {
  id: string;
  institutionId: string;
  event: string;
  payload: Record<string, unknown>;
  /** attempt_count before this attempt (its attempt number is this + 1). */
  attemptCount: number;
  webhookUrl: string | null;
  secretEncrypted: string | null;
  /** The secret before the last rotation while its overlap lasts (it signs too), else null. */
  previousSecretEncrypted: string | null;
  /** Custom request headers (encrypted JSON list of {name, value}), else null. */
  headersEncrypted: string | null;
  /** The institution's cap on attempts per second, else null. */
  maxPerSecond: number | null;
  /** Mutual TLS: the client certificate and key (PEM, encrypted), else null. */
  clientCertEncrypted: string | null;
  clientKeyEncrypted: string | null;
  token: string;
  /** How long the lease still runs, measured by the database at the end of the claim. */
  leaseLeftMs: number;
}

export type ClaimResult =
  | { kind: 'claimed'; delivery: ClaimedDelivery }
  /** Not in this database, or the step was already done (delivered, retried, redelivered since). */
  | { kind: 'done' }
  /** Another worker holds the attempt; try again after `until`. */
  | { kind: 'busy'; until: Date }
  /** The institution's URL is paused (it kept failing): the step waits until an admin resumes. */
  | { kind: 'paused' }
  /** An earlier claim expired without an outcome: its worker died mid-attempt. */
  | {
      kind: 'interrupted';
      token: string;
      startedAt: Date;
      url: string | null;
      institutionId: string;
    };

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

/** A delivery to create: the event's body is built by libs/domain (webhook-payloads). */
export interface NewDelivery {
  institutionId: string;
  /** Null for a test event. */
  redemptionId: string | null;
  event: string;
  payload: Record<string, unknown>;
}

export type RedeliveryStart =
  | { kind: 'started'; series: number }
  | { kind: 'not_found' }
  | { kind: 'in_progress' }
  | { kind: 'not_configured' };

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

export interface StepRef {
  id: string;
  series: number;
  attempt: number;
  nextAttemptAt: Date | null;
}

const CLAIM_SQL = `
WITH req AS (
  SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[], $4::uuid[]) AS r(id, series, attempt, token)
), cur AS (
  SELECT d.id, d.institution_id, d.status, d.redelivery_count, d.series_attempt_count, d.lease_token, d.lease_until,
         d.lease_started_at, d.lease_url, (d.lease_until IS NOT NULL AND d.lease_until <= now()) AS lease_expired
    FROM webhook_delivery d
   WHERE d.id IN (SELECT id FROM req)
   ORDER BY d.id
     FOR UPDATE OF d
), claimed AS (
  UPDATE webhook_delivery d
     SET lease_token = req.token,
         lease_until = clock_timestamp() + make_interval(secs => $5::float8 / 1000),
         lease_started_at = clock_timestamp(),
         lease_url = i.webhook_url
    FROM req, cur, institution i
   WHERE d.id = req.id AND cur.id = d.id AND i.id = d.institution_id
     AND cur.status = 'pending' AND cur.redelivery_count = req.series AND cur.series_attempt_count = req.attempt - 1
     AND cur.lease_token IS NULL AND i.webhook_disabled_at IS NULL
  RETURNING d.id, d.institution_id, d.event, d.payload, d.attempt_count, i.webhook_url, i.webhook_secret_encrypted,
            CASE WHEN i.webhook_previous_secret_expires_at > now() THEN i.webhook_previous_secret_encrypted END
              AS previous_secret_encrypted,
            i.webhook_headers_encrypted, i.webhook_max_per_second,
            i.webhook_client_cert_encrypted, i.webhook_client_key_encrypted,
            d.lease_until AS granted_until
)
SELECT req.id, req.series, req.attempt, req.token,
       cur.id IS NOT NULL AS found, cur.institution_id AS cur_institution_id, cur.status, cur.redelivery_count,
       cur.series_attempt_count, cur.lease_token, cur.lease_until, cur.lease_started_at, cur.lease_url, cur.lease_expired,
       claimed.id IS NOT NULL AS claimed, claimed.institution_id, claimed.event, claimed.payload, claimed.attempt_count,
       claimed.webhook_url, claimed.webhook_secret_encrypted, claimed.previous_secret_encrypted,
       claimed.webhook_headers_encrypted, claimed.webhook_max_per_second,
       claimed.webhook_client_cert_encrypted, claimed.webhook_client_key_encrypted,
       extract(epoch FROM claimed.granted_until - clock_timestamp()) * 1000 AS lease_left_ms,
       ci.webhook_disabled_at IS NOT NULL AS paused
  FROM req LEFT JOIN cur ON cur.id = req.id LEFT JOIN claimed ON claimed.id = req.id
  LEFT JOIN institution ci ON ci.id = cur.institution_id`;

const RECORD_SQL = `
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
    FROM r
   WHERE d.id = r.id AND d.lease_token = r.token
  RETURNING d.id, d.institution_id, d.attempt_count, d.status
), a AS (
  INSERT INTO webhook_attempt (delivery_id, attempt_number, trigger, url, started_at, duration_ms, http_status,
                               error_class, error_message, response_excerpt, request_headers)
  SELECT d.id, d.attempt_count, r.trigger, r.url, r.started_at, r.duration_ms, r.http_status, r.error_class,
         r.error_message, r.excerpt, r.request_headers
    FROM d JOIN r ON r.id = d.id
), m AS (
  INSERT INTO inbox_message (institution_id, kind, title, body, dedupe_key)
  SELECT d.institution_id, 'webhook.failed', 'A redemption webhook could not be delivered', r.alert_body, 'webhook.failed:' || d.id
    FROM d JOIN r ON r.id = d.id
   WHERE r.alert_body IS NOT NULL
  ON CONFLICT (institution_id, dedupe_key) DO NOTHING
)
-- The institution's failing streak: a 2xx ends it, a failure starts it; a streak older than the
-- pause threshold ($16 ms) pauses the URL once, with an inbox alert.
, streak AS (
  SELECT i.id, x.ok, COALESCE(i.webhook_failing_since, x.first_fail) AS since, i.webhook_failing_since AS old_since,
         i.webhook_disabled_at AS old_disabled
    FROM (SELECT d.institution_id, bool_or(r.outcome = 'delivered') AS ok,
                 min(r.started_at) FILTER (WHERE r.outcome <> 'delivered') AS first_fail
            FROM d JOIN r ON r.id = d.id GROUP BY d.institution_id) x
    JOIN institution i ON i.id = x.institution_id
), chg AS (
  SELECT id, CASE WHEN ok THEN NULL ELSE since END AS new_since,
         (NOT ok AND old_disabled IS NULL AND since <= now() - make_interval(secs => $16::float8 / 1000)) AS pause,
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
  SELECT chg.id, 'webhook.paused', 'Webhook deliveries are paused',
         'Every attempt to your webhook URL has failed since ' || to_char(chg.new_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') ||
         ' UTC, so deliveries are paused: new and pending events wait, nothing is lost. Fix your endpoint, then resume ' ||
         'under Webhooks; waiting deliveries are sent in the order they were created.',
         'webhook.paused:' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')
    FROM chg WHERE chg.pause
  ON CONFLICT (institution_id, dedupe_key) DO NOTHING
  RETURNING institution_id, title, body
)
SELECT id, attempt_count, status,
       (SELECT json_agg(json_build_object('institutionId', institution_id, 'title', title, 'body', body)) FROM pa) AS paused
  FROM d`;

/** A URL this statement paused, with the inbox alert it wrote (e-mailed where SMTP is set). */
export interface PausedAlert {
  institutionId: string;
  title: string;
  body: string;
}

/** Runs `write` on items whose ids are unique within the call; a repeated id waits for the next round. */
async function byUniqueId<I extends { deliveryId: string }, O>(
  items: I[],
  write: (unique: I[]) => Promise<Map<string, O>>,
  fallback: O,
): Promise<O[]> {
  const out: O[] = new Array(items.length);
  let rest = items.map((item, index) => ({ item, index }));
  while (rest.length) {
    const seen = new Set<string>();
    const round: typeof rest = [];
    const later: typeof rest = [];
    for (const e of rest)
      (seen.has(e.item.deliveryId) ? later : (seen.add(e.item.deliveryId), round)).push(e);
    const results = await write(round.map((e) => e.item));
    for (const e of round) out[e.index] = results.get(e.item.deliveryId) ?? fallback;
    rest = later;
  }
  return out;
}

export class WebhookStore {
  private readonly claims: GroupCommitter<ClaimRequest, ClaimResult>;
  private readonly records: GroupCommitter<AttemptRecord, RecordResult>;
  private readonly pauseListeners: ((alert: PausedAlert) => void)[] = [];

  /** Called after the commit of each pause an attempt's record made (the worker e-mails it). */
  onPaused(fn: (alert: PausedAlert) => void): void {
    this.pauseListeners.push(fn);
  }

  constructor(
    private readonly db: DataSource,
    private readonly leaseMs: number,
    /** A URL failing for this long is paused (WEBHOOK_DISABLE_AFTER_DAYS). */
    private readonly pauseAfterMs = 3 * 86_400_000,
  ) {
    this.claims = new GroupCommitter((items) => this.claimBatch(items), {
      maxBatch: 200,
      maxInFlight: 3,
    });
    this.records = new GroupCommitter((items) => this.recordBatch(items), {
      maxBatch: 200,
      maxInFlight: 3,
    });
  }

  /**
   * Creates deliveries inside the caller's transaction (`m`), so they commit with the event that
   * caused them (the outbox: a trigger tells the worker's relay at commit). Only for institutions
   * that receive that event type; one delivery per redemption and event type (a second request for
   * the same pair is ignored). Returns the ids created.
   */
  async insertDeliveries(m: EntityManager, rows: readonly NewDelivery[]): Promise<string[]> {
    if (!rows.length) return [];
    const created: { id: string }[] = await m.query(
      `INSERT INTO webhook_delivery (institution_id, redemption_id, event, payload)
       SELECT x.institution_id, x.redemption_id, x.event, x.payload
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[]) AS x(institution_id, redemption_id, event, payload)
         JOIN institution i ON i.id = x.institution_id
        WHERE x.event = 'webhook.test' OR x.event = ANY(i.webhook_event_types)
       ON CONFLICT (redemption_id, event) DO NOTHING
       RETURNING id`,
      [
        rows.map((r) => r.institutionId),
        rows.map((r) => r.redemptionId),
        rows.map((r) => r.event),
        rows.map((r) => JSON.stringify(r.payload)),
      ],
    );
    return created.map((r) => r.id);
  }

  /** Re-reads the row and takes the attempt's lease when the step is still to be done. */
  claim(req: ClaimRequest): Promise<ClaimResult> {
    return this.claims.submit(req);
  }

  /** Writes an attempt's outcome (attempt row, delivery state, alert) if the lease is still ours. */
  record(rec: AttemptRecord): Promise<RecordResult> {
    return this.records.submit(rec);
  }

  private async claimBatch(items: ClaimRequest[]): Promise<ClaimResult[]> {
    return byUniqueId(
      items,
      async (unique) => {
        const tokens = unique.map(() => randomUUID());
        const rows: ClaimRow[] = await this.db.query(CLAIM_SQL, [
          unique.map((i) => i.deliveryId),
          unique.map((i) => i.series),
          unique.map((i) => i.attempt),
          tokens,
          this.leaseMs,
        ]);
        return new Map(rows.map((r) => [r.id, toClaimResult(r)]));
      },
      { kind: 'done' },
    );
  }

  private async recordBatch(items: AttemptRecord[]): Promise<RecordResult[]> {
    const missing: RecordResult = { recorded: false, attemptNumber: null, status: null };
    return byUniqueId(
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
          this.pauseAfterMs,
        ]);
        // Every row carries the same list: the pauses this statement made.
        for (const alert of rows[0]?.paused ?? []) for (const fn of this.pauseListeners) fn(alert);
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
   * Gives a lease back without an attempt (its holder found too little of it left to send): the
   * step can be claimed again at once.
   */
  async release(deliveryId: string, token: string): Promise<boolean> {
    const res = await this.db.query(
      `UPDATE webhook_delivery SET lease_token = NULL, lease_until = NULL, lease_started_at = NULL, lease_url = NULL
        WHERE id = $1 AND lease_token = $2 RETURNING id`,
      [deliveryId, token],
    );
    return returnedRows(res).length > 0;
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
      `WITH d AS (
         UPDATE webhook_delivery
            SET status = 'delivered', delivered_at = COALESCE(delivered_at, now()), next_attempt_at = NULL,
                status_reason = NULL
          WHERE id = $1 AND redelivery_count = $2 AND status IN ('pending', 'failed')
          RETURNING id
       ), a AS (
         UPDATE webhook_attempt
            SET started_at = $4, duration_ms = $5, http_status = $6, error_class = NULL, url = $7,
                error_message = 'recorded after its lease had been taken over', response_excerpt = $8,
                request_headers = $9
          WHERE delivery_id = $1 AND attempt_number = $3
       )
       SELECT id FROM d`,
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

  /**
   * A portal redelivery: a new series (one manual attempt) for a settled delivery of this
   * institution, once a URL and a secret are set. One statement: of concurrent requests for one
   * delivery exactly one finds it settled (the others see it `pending`).
   */
  async startRedelivery(institutionId: string, id: string): Promise<RedeliveryStart> {
    const rows = returnedRows<{ redelivery_count: number }>(
      await this.db.query(
        `UPDATE webhook_delivery d
            SET redelivery_count = d.redelivery_count + 1, series_attempt_count = 0, status = 'pending',
                status_reason = NULL, enqueued_at = NULL, next_attempt_at = now()
           FROM institution i
          WHERE d.id = $1 AND d.institution_id = $2 AND i.id = d.institution_id
            AND d.status IN ('delivered', 'failed', 'skipped')
            AND i.webhook_url IS NOT NULL AND i.webhook_secret_encrypted IS NOT NULL
          RETURNING d.redelivery_count`,
        [id, institutionId],
      ),
    );
    if (rows.length) return { kind: 'started', series: rows[0].redelivery_count };
    const [state] = await this.db.query(
      `SELECT d.status FROM webhook_delivery d WHERE d.id = $1 AND d.institution_id = $2`,
      [id, institutionId],
    );
    if (!state) return { kind: 'not_found' };
    return { kind: state.status === 'pending' ? 'in_progress' : 'not_configured' };
  }

  /**
   * A replay step's redeliveries: each of these deliveries still `failed` starts a new series (one
   * manual attempt), in the replay's transaction; answers those that did.
   */
  async reopenFailed(
    m: EntityManager,
    ids: readonly string[],
  ): Promise<{ id: string; redelivery_count: number }[]> {
    if (!ids.length) return [];
    return returnedRows<{ id: string; redelivery_count: number }>(
      await m.query(
        `UPDATE webhook_delivery d
            SET redelivery_count = d.redelivery_count + 1, series_attempt_count = 0, status = 'pending',
                status_reason = NULL, enqueued_at = NULL, next_attempt_at = now()
          WHERE d.id = ANY($1::uuid[]) AND d.status = 'failed'
          RETURNING d.id, d.redelivery_count`,
        [ids],
      ),
    );
  }

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
    if (q.id) add('id = ?::uuid', q.id);
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
      `SELECT ${DELIVERY_COLUMNS}, payload FROM webhook_delivery WHERE id = $1 AND institution_id = $2`,
      [id, institutionId],
    );
    if (!delivery) return null;
    const attempts: AttemptRow[] = await this.db.query(
      `SELECT attempt_number, trigger, url, started_at, duration_ms, http_status, error_class, error_message, response_excerpt,
              request_headers
         FROM webhook_attempt WHERE delivery_id = $1 ORDER BY attempt_number`,
      [id],
    );
    return { delivery, attempts };
  }

  /**
   * Resumes a paused URL: the pause and the failing streak end, and the institution's pending
   * deliveries are returned in creation order, as the steps to queue (their series goes on where
   * it stopped). Null when the URL was not paused.
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
      const pending = returnedRows<StepRow & { created_at: Date }>(
        await m.query(
          `UPDATE webhook_delivery d SET next_attempt_at = now(), enqueued_at = now()
           FROM (SELECT id FROM webhook_delivery WHERE institution_id = $1 AND status = 'pending'
                  ORDER BY created_at, id) p
          WHERE d.id = p.id
          RETURNING d.id, d.redelivery_count, d.series_attempt_count, d.created_at`,
          [institutionId],
        ),
      );
      // Oldest first, a little apart (250 ms, less for a long list: all within 10 s), so that the
      // attempts start in creation order even on a busy worker.
      const gap = Math.min(250, 10_000 / Math.max(1, pending.length));
      const now = Date.now();
      return pending
        .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1))
        .map((r, i) => ({ ...toStep(r), nextAttemptAt: new Date(now + i * gap) }));
    });
  }

  /**
   * No URL or no usable secret: the delivery is `skipped` (a delivery that already went through
   * stays `delivered`), visible in the portal and redeliverable once the settings are fixed.
   */
  async skip(deliveryId: string, token: string, reason: string): Promise<boolean> {
    const res = await this.db.query(
      `UPDATE webhook_delivery
          SET status = CASE WHEN delivered_at IS NOT NULL THEN 'delivered' ELSE 'skipped' END,
              status_reason = CASE WHEN delivered_at IS NOT NULL THEN status_reason ELSE $3 END,
              next_attempt_at = NULL, lease_token = NULL, lease_until = NULL, lease_started_at = NULL, lease_url = NULL
        WHERE id = $1 AND lease_token = $2
        RETURNING id`,
      [deliveryId, token, reason],
    );
    return returnedRows(res).length > 0;
  }

  /** Marks steps as handed to the queue (only rows still waiting for exactly that step). */
  async markEnqueued(steps: StepRef[]): Promise<void> {
    if (!steps.length) return;
    await this.db.query(
      `UPDATE webhook_delivery d
          SET enqueued_at = now(), next_attempt_at = COALESCE(d.next_attempt_at, now())
         FROM unnest($1::uuid[], $2::int[], $3::int[]) AS r(id, series, attempt)
        WHERE d.id = r.id AND d.status = 'pending' AND d.enqueued_at IS NULL
          AND d.redelivery_count = r.series AND d.series_attempt_count = r.attempt - 1`,
      [steps.map((s) => s.id), steps.map((s) => s.series), steps.map((s) => s.attempt)],
    );
  }

  /** The queue refused a step (Redis down): leave it to the relay. */
  async markUnqueued(step: StepRef): Promise<void> {
    await this.db.query(
      `UPDATE webhook_delivery SET enqueued_at = NULL
        WHERE id = $1 AND status = 'pending' AND redelivery_count = $2 AND series_attempt_count = $3 - 1`,
      [step.id, step.series, step.attempt],
    );
  }

  /** Outbox: pending deliveries never handed to the queue (the partial index webhook_delivery_unqueued_idx). */
  async unqueued(limit: number, graceMs: number): Promise<StepRef[]> {
    const rows: StepRow[] = await this.db.query(
      `SELECT id, redelivery_count, series_attempt_count, next_attempt_at FROM webhook_delivery
        WHERE status = 'pending' AND enqueued_at IS NULL AND created_at < now() - make_interval(secs => $2::float8 / 1000)
        ORDER BY created_at LIMIT $1`,
      [limit, graceMs],
    );
    return rows.map(toStep);
  }

  /**
   * Pending deliveries whose next attempt is overdue by more than `lateMs` and that were not
   * (re-)enqueued within `lateMs`, with no attempt in flight: their job was lost (Redis lost its
   * data, or a crash between commit and enqueue). Re-enqueueing one whose job still exists is
   * harmless: the job id is the same, and a step already done is a no-op.
   */
  async overdue(limit: number, lateMs: number): Promise<StepRef[]> {
    const rows: StepRow[] = await this.db.query(
      `SELECT id, redelivery_count, series_attempt_count, next_attempt_at FROM webhook_delivery
        WHERE status = 'pending'
          AND next_attempt_at < now() - make_interval(secs => $2::float8 / 1000)
          AND enqueued_at < now() - make_interval(secs => $2::float8 / 1000)
          AND (lease_until IS NULL OR lease_until < now())
          AND NOT EXISTS (SELECT 1 FROM institution i WHERE i.id = webhook_delivery.institution_id AND i.webhook_disabled_at IS NOT NULL)
        ORDER BY next_attempt_at LIMIT $1`,
      [limit, lateMs],
    );
    return rows.map(toStep);
  }

  /** After re-enqueueing overdue steps: not again for another `lateMs`. */
  async touchEnqueued(steps: StepRef[]): Promise<void> {
    if (!steps.length) return;
    await this.db.query(
      `UPDATE webhook_delivery d SET enqueued_at = now()
         FROM unnest($1::uuid[], $2::int[], $3::int[]) AS r(id, series, attempt)
        WHERE d.id = r.id AND d.status = 'pending' AND d.redelivery_count = r.series AND d.series_attempt_count = r.attempt - 1`,
      [steps.map((s) => s.id), steps.map((s) => s.series), steps.map((s) => s.attempt)],
    );
  }
}

interface StepRow {
  id: string;
  redelivery_count: number;
  series_attempt_count: number;
  next_attempt_at: Date | null;
}

const toStep = (r: StepRow): StepRef => ({
  id: r.id,
  series: r.redelivery_count,
  attempt: r.series_attempt_count + 1,
  nextAttemptAt: r.next_attempt_at,
});

interface ClaimRow {
  id: string;
  series: number;
  attempt: number;
  token: string;
  found: boolean;
  cur_institution_id: string | null;
  status: string | null;
  redelivery_count: number | null;
  series_attempt_count: number | null;
  lease_token: string | null;
  lease_until: Date | null;
  lease_started_at: Date | null;
  lease_url: string | null;
  lease_expired: boolean | null;
  claimed: boolean;
  institution_id: string | null;
  event: string | null;
  payload: Record<string, unknown> | null;
  attempt_count: number | null;
  webhook_url: string | null;
  webhook_secret_encrypted: string | null;
  previous_secret_encrypted: string | null;
  webhook_headers_encrypted: string | null;
  webhook_max_per_second: number | null;
  webhook_client_cert_encrypted: string | null;
  webhook_client_key_encrypted: string | null;
  paused: boolean | null;
  lease_left_ms: string | number | null;
}

function toClaimResult(r: ClaimRow): ClaimResult {
  if (r.claimed) {
    return {
      kind: 'claimed',
      delivery: {
        id: r.id,
        institutionId: r.institution_id!,
        event: r.event!,
        payload: r.payload!,
        attemptCount: r.attempt_count!,
        webhookUrl: r.webhook_url,
        secretEncrypted: r.webhook_secret_encrypted,
        previousSecretEncrypted: r.previous_secret_encrypted,
        headersEncrypted: r.webhook_headers_encrypted,
        maxPerSecond: r.webhook_max_per_second,
        clientCertEncrypted: r.webhook_client_cert_encrypted,
        clientKeyEncrypted: r.webhook_client_key_encrypted,
        token: r.token,
        leaseLeftMs: Number(r.lease_left_ms ?? 0),
      },
    };
  }
  const sameStep =
    r.found &&
    r.status === 'pending' &&
    r.redelivery_count === r.series &&
    r.series_attempt_count === r.attempt - 1;
  if (!sameStep) return { kind: 'done' };
  if (!r.lease_token && r.paused) return { kind: 'paused' };
  if (r.lease_token && r.lease_expired) {
    return {
      kind: 'interrupted',
      token: r.lease_token,
      startedAt: r.lease_started_at ?? new Date(),
      url: r.lease_url,
      institutionId: r.cur_institution_id!,
    };
  }
  return { kind: 'busy', until: r.lease_until ?? new Date(Date.now() + 1_000) };
}
