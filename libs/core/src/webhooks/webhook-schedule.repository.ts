import { randomUUID } from 'crypto';
import { DataSource, EntityManager } from 'typeorm';
import { prepared, returnedRows } from '@app/db';
import { GroupCommitter } from '../group-commit';
import { byDelivery } from './by-delivery';
import { deliveriesLockedInIdOrder, deliveryById, ON_KEY } from './delivery-key';

/**
 * When each delivery's next attempt runs and who runs it: the delivery rows' creation, the lease an
 * attempt is claimed under, new series (redelivery, replay) and the outbox marks the relay reads.
 * Every change is conditional on the step it belongs to (series and attempt number), so a duplicate
 * or late job can never act twice. Claims of concurrent attempts are written together (group
 * commit): one statement and one commit for many.
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

/** A delivery to create: the event's body is built by libs/domain (webhook-payloads). */
export interface NewDelivery {
  institutionId: string;
  /** Null for an event about no redemption (a test event, a closed statement). */
  redemptionId: string | null;
  event: string;
  payload: Record<string, unknown>;
}

export type RedeliveryStart =
  | { kind: 'started'; series: number }
  | { kind: 'not_found' }
  | { kind: 'in_progress' }
  | { kind: 'not_configured' };

export interface StepRef {
  id: string;
  series: number;
  attempt: number;
  nextAttemptAt: Date | null;
}

const CLAIM_SQL = prepared(`
WITH req AS (
  SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[], $4::uuid[]) AS r(id, series, attempt, token)
), ${deliveriesLockedInIdOrder(
  '$1::uuid[]',
  `d.id, d.institution_id, d.created_at, d.status, d.redelivery_count, d.series_attempt_count, d.lease_token,
   d.lease_until, d.lease_started_at, d.lease_url`,
)}, cur AS (
  SELECT d.*, (d.lease_until IS NOT NULL AND d.lease_until <= now()) AS lease_expired FROM locked d
), claimed AS (
  UPDATE webhook_delivery d
     SET lease_token = req.token,
         lease_until = clock_timestamp() + make_interval(secs => $5::float8 / 1000),
         lease_started_at = clock_timestamp(),
         lease_url = i.webhook_url
    FROM req, cur, institution i
   WHERE d.institution_id = cur.institution_id AND d.created_at = cur.created_at AND d.id = cur.id
     AND cur.id = req.id AND i.id = d.institution_id
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
  LEFT JOIN institution ci ON ci.id = cur.institution_id`);

export class WebhookScheduleRepository {
  private readonly claims: GroupCommitter<ClaimRequest, ClaimResult>;

  constructor(
    private readonly db: DataSource,
    /** How long a claimed attempt may run and be recorded (WEBHOOK_TIMEOUT_MS + WEBHOOK_LEASE_GRACE_MS). */
    private readonly leaseMs: number,
  ) {
    this.claims = new GroupCommitter((items) => this.claimBatch(items), {
      maxBatch: 200,
      maxInFlight: 3,
    });
  }

  /**
   * Creates deliveries inside the caller's transaction (`m`), so they commit with the event that
   * caused them (the outbox: a trigger tells the worker's relay at commit). Only for institutions
   * that receive that event type; one delivery per redemption and event type (a second request for
   * the same pair is ignored: the webhook_delivery_key_insert trigger skips it, the key table holding
   * that unique key without a time bound). Returns the ids created.
   */
  async insertDeliveries(m: EntityManager, rows: readonly NewDelivery[]): Promise<string[]> {
    if (!rows.length) return [];
    const created: { id: string }[] = await m.query(
      prepared(`INSERT INTO webhook_delivery (institution_id, redemption_id, event, payload)
       SELECT x.institution_id, x.redemption_id, x.event, x.payload
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[]) AS x(institution_id, redemption_id, event, payload)
         JOIN institution i ON i.id = x.institution_id
        WHERE x.event = 'webhook.test' OR x.event = ANY(i.webhook_event_types)
       RETURNING id`),
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

  private async claimBatch(items: ClaimRequest[]): Promise<ClaimResult[]> {
    return byDelivery(
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

  /**
   * Gives a lease back without an attempt (its holder found too little of it left to send): the
   * step can be claimed again at once.
   */
  async release(deliveryId: string, token: string): Promise<boolean> {
    const res = await this.db.query(
      prepared(`UPDATE webhook_delivery d SET lease_token = NULL, lease_until = NULL, lease_started_at = NULL, lease_url = NULL
        WHERE ${deliveryById('d', '$1::uuid')} AND d.lease_token = $2 RETURNING d.id`),
      [deliveryId, token],
    );
    return returnedRows(res).length > 0;
  }

  /**
   * No URL or no usable secret: the delivery is `skipped` (a delivery that already went through
   * stays `delivered`), visible in the portal and redeliverable once the settings are fixed.
   */
  async skip(deliveryId: string, token: string, reason: string): Promise<boolean> {
    const res = await this.db.query(
      prepared(`UPDATE webhook_delivery d
          SET status = CASE WHEN d.delivered_at IS NOT NULL THEN 'delivered' ELSE 'skipped' END,
              status_reason = CASE WHEN d.delivered_at IS NOT NULL THEN d.status_reason ELSE $3 END,
              next_attempt_at = NULL, lease_token = NULL, lease_until = NULL, lease_started_at = NULL, lease_url = NULL
        WHERE ${deliveryById('d', '$1::uuid')} AND d.lease_token = $2
        RETURNING d.id`),
      [deliveryId, token, reason],
    );
    return returnedRows(res).length > 0;
  }

  /**
   * A portal redelivery: a new series (one manual attempt) for a settled delivery of this
   * institution, once a URL and a secret are set. One statement: of concurrent requests for one
   * delivery exactly one finds it settled (the others see it `pending`).
   */
  async startRedelivery(institutionId: string, id: string): Promise<RedeliveryStart> {
    const rows = returnedRows<{ redelivery_count: number }>(
      await this.db.query(
        prepared(`UPDATE webhook_delivery d
            SET redelivery_count = d.redelivery_count + 1, series_attempt_count = 0, status = 'pending',
                status_reason = NULL, enqueued_at = NULL, next_attempt_at = now()
           FROM institution i
          WHERE ${deliveryById('d', '$1::uuid')} AND d.institution_id = $2 AND i.id = d.institution_id
            AND d.status IN ('delivered', 'failed', 'skipped')
            AND i.webhook_url IS NOT NULL AND i.webhook_secret_encrypted IS NOT NULL
          RETURNING d.redelivery_count`),
        [id, institutionId],
      ),
    );
    if (rows.length) return { kind: 'started', series: rows[0].redelivery_count };
    const [state] = await this.db.query(
      prepared(
        `SELECT d.status FROM webhook_delivery d WHERE ${deliveryById('d', '$1::uuid')} AND d.institution_id = $2`,
      ),
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
        prepared(`WITH ${deliveriesLockedInIdOrder('$1::uuid[]')}
         UPDATE webhook_delivery d
            SET redelivery_count = d.redelivery_count + 1, series_attempt_count = 0, status = 'pending',
                status_reason = NULL, enqueued_at = NULL, next_attempt_at = now()
           FROM locked k
          WHERE ${ON_KEY} AND d.status = 'failed'
          RETURNING d.id, d.redelivery_count`),
        [ids],
      ),
    );
  }

  /** Marks steps as handed to the queue (only rows still waiting for exactly that step). */
  async markEnqueued(steps: StepRef[]): Promise<void> {
    if (!steps.length) return;
    await this.db.query(
      prepared(`WITH ${deliveriesLockedInIdOrder('$1::uuid[]')}
       UPDATE webhook_delivery d
          SET enqueued_at = now(), next_attempt_at = COALESCE(d.next_attempt_at, now())
         FROM unnest($1::uuid[], $2::int[], $3::int[]) AS r(id, series, attempt) JOIN locked k ON k.id = r.id
        WHERE ${ON_KEY} AND d.status = 'pending' AND d.enqueued_at IS NULL
          AND d.redelivery_count = r.series AND d.series_attempt_count = r.attempt - 1`),
      [steps.map((s) => s.id), steps.map((s) => s.series), steps.map((s) => s.attempt)],
    );
  }

  /** The queue refused a step (Redis down): leave it to the relay. */
  async markUnqueued(step: StepRef): Promise<void> {
    await this.db.query(
      prepared(`UPDATE webhook_delivery d SET enqueued_at = NULL
        WHERE ${deliveryById('d', '$1::uuid')} AND d.status = 'pending' AND d.redelivery_count = $2
          AND d.series_attempt_count = $3 - 1`),
      [step.id, step.series, step.attempt],
    );
  }

  /** Outbox: pending deliveries never handed to the queue (the partial index webhook_delivery_unqueued_idx). */
  async unqueued(limit: number, graceMs: number): Promise<StepRef[]> {
    const rows: StepRow[] = await this.db.query(
      prepared(`SELECT id, redelivery_count, series_attempt_count, next_attempt_at FROM webhook_delivery
        WHERE status = 'pending' AND enqueued_at IS NULL AND created_at < now() - make_interval(secs => $2::float8 / 1000)
        ORDER BY created_at LIMIT $1`),
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
      prepared(`SELECT id, redelivery_count, series_attempt_count, next_attempt_at FROM webhook_delivery
        WHERE status = 'pending'
          AND next_attempt_at < now() - make_interval(secs => $2::float8 / 1000)
          AND enqueued_at < now() - make_interval(secs => $2::float8 / 1000)
          AND (lease_until IS NULL OR lease_until < now())
          AND NOT EXISTS (SELECT 1 FROM institution i WHERE i.id = webhook_delivery.institution_id AND i.webhook_disabled_at IS NOT NULL)
        ORDER BY next_attempt_at LIMIT $1`),
      [limit, lateMs],
    );
    return rows.map(toStep);
  }

  /** After re-enqueueing overdue steps: not again for another `lateMs`. */
  async touchEnqueued(steps: StepRef[]): Promise<void> {
    if (!steps.length) return;
    await this.db.query(
      prepared(`WITH ${deliveriesLockedInIdOrder('$1::uuid[]')}
       UPDATE webhook_delivery d SET enqueued_at = now()
         FROM unnest($1::uuid[], $2::int[], $3::int[]) AS r(id, series, attempt) JOIN locked k ON k.id = r.id
        WHERE ${ON_KEY} AND d.status = 'pending' AND d.redelivery_count = r.series AND d.series_attempt_count = r.attempt - 1`),
      [steps.map((s) => s.id), steps.map((s) => s.series), steps.map((s) => s.attempt)],
    );
  }

  /**
   * An institution's pending deliveries, due now, in creation order: the steps to queue when its
   * paused URL resumes (each series goes on where it stopped). In the caller's transaction.
   */
  async duePending(
    m: EntityManager,
    institutionId: string,
  ): Promise<(StepRef & { createdAt: Date })[]> {
    const rows = returnedRows<StepRow & { created_at: Date }>(
      await m.query(
        prepared(`UPDATE webhook_delivery d SET next_attempt_at = now(), enqueued_at = now()
         FROM (SELECT created_at, id FROM webhook_delivery WHERE institution_id = $1 AND status = 'pending') p
        WHERE d.institution_id = $1 AND d.created_at = p.created_at AND d.id = p.id
        RETURNING d.id, d.redelivery_count, d.series_attempt_count, d.next_attempt_at, d.created_at`),
        [institutionId],
      ),
    );
    return rows
      .map((r) => ({ ...toStep(r), createdAt: r.created_at }))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
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
