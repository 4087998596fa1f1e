import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { ErasedCounts, ErasureStatus, ErasureWait } from '@app/domain';
import { unpartitionedName } from '../data-lifecycle/partitions.repository';
import { ON_KEY } from '../webhooks/delivery-key';

/** A cardholder's redemptions `x` with their deliveries' keys `k` (one key per redemption and event). */
const CARDHOLDER_KEYS = `redemption x
  JOIN webhook_delivery_key k ON k.institution_id = x.institution_id AND k.redemption_id = x.id`;
/** The same with the deliveries `d` themselves, each found in its month. */
const CARDHOLDER_DELIVERIES = `${CARDHOLDER_KEYS} JOIN webhook_delivery d ON ${ON_KEY}`;

/** One generation of the webhook tables (the partitioned ones, keyed; the old ones while they last). */
interface WebhookTables {
  delivery: string;
  attempt: string;
  keyed: boolean;
}

/** An erasure as its requester reads it (never the token). */
export interface ErasureRow {
  id: string;
  institution_id: string;
  status: ErasureStatus;
  requested_by: string;
  requested_at: Date;
  completed_at: Date | null;
  erased: ErasedCounts | null;
}

/** A pending erasure as the worker claims it: the token it is to erase. */
export interface ClaimedErasure {
  id: string;
  institution_id: string;
  cardholder_token: string;
  requested_by: string;
  requested_at: Date;
}

/**
 * The forms of the token to replace and what replaces each, as statement parameters: the token
 * and its masked form (the second pair repeats the first when the masked form names no one), in
 * plain text and as spelled inside a JSON string.
 */
export interface Replacements {
  token: string;
  pseudonym: string;
  masked: string;
  pseudonymMasked: string;
  jsonToken: string;
  jsonPseudonym: string;
  jsonMasked: string;
  jsonPseudonymMasked: string;
}

/** A CSV upload that holds the token, read whole so its bytes can be rewritten. */
export interface UploadWithToken {
  id: string;
  content: Buffer | null;
  invalid_text: string;
  error_message: string | null;
}

const ROW = `id, institution_id, status, requested_by, requested_at, completed_at, erased`;

/** `replace` of both forms: $a→$b, then $c→$d, on `expr`. */
const replaced = (expr: string, a: string, b: string, c: string, d: string) =>
  `replace(replace(${expr}, ${a}, ${b}), ${c}, ${d})`;
const holds = (expr: string, a: string, c: string) =>
  `(strpos(${expr}, ${a}) > 0 OR strpos(${expr}, ${c}) > 0)`;

/**
 * Every statement of the right to erasure (docs/privacy.md): the erasure requests and their
 * record, and the replacement of a cardholder's token by a pseudonym in each table that stores it.
 * Each replacement finds its rows by an index on (institution_id, token), or through rows found
 * so (a delivery by its redemption, an attempt by its delivery); what has no token column (CSV
 * files, audit details, inbox texts) is searched within the institution. The writes take the
 * caller's transaction: an erasure is all of them or none.
 */
@Injectable()
export class ErasureRepository {
  constructor(private readonly db: DataSource) {}

  // ------------------------------------------------------------------ requests and their record

  /**
   * A new erasure, in the caller's transaction (with its audit entry), and its security_event row
   * for the previous release's portal (without the token).
   */
  async request(
    m: EntityManager,
    institutionId: string,
    token: string,
    requestedBy: string,
  ): Promise<ErasureRow> {
    const [row]: ErasureRow[] = await m.query(
      `WITH e AS (
         INSERT INTO cardholder_erasure (institution_id, cardholder_token, requested_by)
         VALUES ($1, $2, $3) RETURNING ${ROW}),
       activity AS (
         INSERT INTO security_event (institution_id, type, actor, details)
         SELECT institution_id, 'cardholder.erasure_requested', requested_by, jsonb_build_object('erasure_id', id)
           FROM e)
       SELECT * FROM e`,
      [institutionId, token, requestedBy],
    );
    return row;
  }

  async find(institutionId: string, id: string): Promise<ErasureRow | undefined> {
    const [row]: ErasureRow[] = await this.db.query(
      `SELECT ${ROW} FROM cardholder_erasure WHERE id = $1 AND institution_id = $2`,
      [id, institutionId],
    );
    return row;
  }

  /** Pending erasures due for a try (cardholder_erasure_due_idx), oldest first. */
  async due(limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM cardholder_erasure
        WHERE status = 'pending' AND next_attempt_at <= now()
        ORDER BY next_attempt_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }

  /** The erasure if still pending, locked for this transaction (another run skips it meanwhile). */
  async claim(m: EntityManager, id: string): Promise<ClaimedErasure | undefined> {
    const [row]: ClaimedErasure[] = await m.query(
      `SELECT id, institution_id, cardholder_token, requested_by, requested_at
         FROM cardholder_erasure WHERE id = $1 AND status = 'pending'
          FOR UPDATE SKIP LOCKED`,
      [id],
    );
    return row;
  }

  /**
   * The cardholder's lock: the one the enrollment insert takes (enrollment_insert_unchanged), so
   * no enrollment of the token commits half-way through its erasure.
   */
  async lockCardholder(m: EntityManager, institutionId: string, token: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2, 0))`, [
      institutionId,
      token,
    ]);
  }

  /**
   * Webhook deliveries still pending for the cardholder's redemptions (redemption_cardholder_idx,
   * then each delivery's key and its month). The old unpartitioned table holds none: the migration
   * that partitioned the webhook tables moved every pending delivery.
   */
  async pendingDeliveries(m: EntityManager, institutionId: string, token: string): Promise<number> {
    const [row]: { n: number }[] = await m.query(
      `SELECT count(*)::int AS n
         FROM ${CARDHOLDER_DELIVERIES}
        WHERE x.institution_id = $1 AND x.cardholder_token = $2 AND d.status = 'pending'`,
      [institutionId, token],
    );
    return row.n;
  }

  /** Whether the institution is under legal hold (docs/retention.md): its erasures wait. */
  async underLegalHold(m: EntityManager, institutionId: string): Promise<boolean> {
    const rows: unknown[] = await m.query(`SELECT 1 FROM legal_hold WHERE institution_id = $1`, [
      institutionId,
    ]);
    return rows.length > 0;
  }

  async postpone(
    m: EntityManager,
    id: string,
    waitingFor: ErasureWait,
    deliveries: number,
    retryMs: number,
  ): Promise<void> {
    await m.query(
      `UPDATE cardholder_erasure
          SET waiting_for = $2, waiting_deliveries = $3,
              next_attempt_at = now() + make_interval(secs => $4::float8 / 1000)
        WHERE id = $1`,
      [id, waitingFor, deliveries, retryMs],
    );
  }

  /** The erasure done: its counts kept, its token gone. */
  async complete(m: EntityManager, id: string, erased: ErasedCounts): Promise<void> {
    await m.query(
      `UPDATE cardholder_erasure
          SET status = 'completed', cardholder_token = NULL, completed_at = now(),
              waiting_for = NULL, waiting_deliveries = 0, erased = $2
        WHERE id = $1`,
      [id, JSON.stringify(erased)],
    );
  }

  /** The security_event row of the previous release's portal, in the erasure's transaction. */
  async recordActivity(
    m: EntityManager,
    institutionId: string,
    type: 'cardholder.erased',
    actor: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    await m.query(
      `INSERT INTO security_event (institution_id, type, actor, details) VALUES ($1, $2, $3, $4)`,
      [institutionId, type, actor, JSON.stringify(details)],
    );
  }

  // ------------------------------------------------------------------ the replacements

  /**
   * Transactions (transaction_cardholder_idx): the token, the card's token, and any quarantine
   * message that quotes it. Amounts, refs, merchants and dates stay.
   */
  async transactions(m: EntityManager, institutionId: string, r: Replacements): Promise<number> {
    const [, n]: [unknown, number] = await m.query(
      `UPDATE transaction
          SET cardholder_token = $3,
              instrument_token = CASE WHEN instrument_token IS NULL THEN NULL ELSE $3 END,
              match_error = replace(match_error, $2, $3)
        WHERE institution_id = $1 AND cardholder_token = $2`,
      [institutionId, r.token, r.pseudonym],
    );
    return n;
  }

  /**
   * The cardholder's purchase months (cardholder_activity_pkey), kept under the
   * pseudonym so that the lift report still counts the cardholder. Not counted in `erased`: the
   * transactions already count what they summarise.
   */
  async purchaseMonths(m: EntityManager, institutionId: string, r: Replacements): Promise<void> {
    await m.query(
      `UPDATE cardholder_activity SET cardholder_token = $3 WHERE institution_id = $1 AND cardholder_token = $2`,
      [institutionId, r.token, r.pseudonym],
    );
  }

  /**
   * Enrollments (cardholder_offer_cardholder_idx) with their card's token and goal progress (the
   * open round's progress and spend stay, under the pseudonym). Counts the enrollments and those
   * of goal offers.
   */
  async enrollments(
    m: EntityManager,
    institutionId: string,
    r: Replacements,
  ): Promise<{ enrollments: number; goalProgress: number }> {
    const [row]: { enrollments: number; goal_progress: number }[] = await m.query(
      `WITH changed AS (
         UPDATE cardholder_offer
            SET cardholder_token = $3,
                card_token = CASE WHEN card_token IS NULL THEN NULL ELSE $3 END
          WHERE institution_id = $1 AND cardholder_token = $2
         RETURNING offer_id)
       SELECT count(*)::int AS enrollments,
              (count(*) FILTER (WHERE o.goal_type IS NOT NULL))::int AS goal_progress
         FROM changed c JOIN offer o ON o.id = c.offer_id`,
      [institutionId, r.token, r.pseudonym],
    );
    return { enrollments: row.enrollments, goalProgress: row.goal_progress };
  }

  /** Redemptions (redemption_cardholder_idx): the money stays as it is. */
  async redemptions(m: EntityManager, institutionId: string, r: Replacements): Promise<number> {
    const [, n]: [unknown, number] = await m.query(
      `UPDATE redemption SET cardholder_token = $3 WHERE institution_id = $1 AND cardholder_token = $2`,
      [institutionId, r.token, r.pseudonym],
    );
    return n;
  }

  /**
   * Claims for missing rewards (docs/claims.md): the claim's token, and the masked form in the body
   * of its `claim.resolved` deliveries (webhook_delivery_event_idx). The reference, the offer and
   * the decision stay.
   */
  async claims(m: EntityManager, institutionId: string, r: Replacements): Promise<number> {
    const [, n]: [unknown, number] = await m.query(
      `UPDATE claim SET cardholder_token = $3 WHERE institution_id = $1 AND cardholder_token = $2`,
      [institutionId, r.token, r.pseudonym],
    );
    if (n)
      for (const { delivery } of await this.webhookTables(m))
        await m.query(
          `UPDATE ${delivery} d
              SET payload = jsonb_set(d.payload, '{cardholder_token_masked}', to_jsonb($3::text))
             FROM claim c
            WHERE c.institution_id = $1 AND c.cardholder_token = $2
              AND d.institution_id = $1 AND d.event = 'claim.resolved' AND d.payload->>'claim_id' = c.id::text`,
          [institutionId, r.pseudonym, r.pseudonymMasked],
        );
    return n;
  }

  /**
   * The stored bodies of the deliveries of the cardholder's redemptions (found by the pseudonym
   * they now carry, then webhook_delivery_event_unique), and the record of each attempt (the
   * receiver's answer may quote the body). Run after `redemptions`.
   */
  async webhooks(m: EntityManager, institutionId: string, r: Replacements): Promise<number> {
    let n = 0;
    for (const t of await this.webhookTables(m)) n += await this.webhooksIn(m, t, institutionId, r);
    return n;
  }

  private async webhooksIn(
    m: EntityManager,
    t: WebhookTables,
    institutionId: string,
    r: Replacements,
  ): Promise<number> {
    const [, n]: [unknown, number] = await m.query(
      `UPDATE ${t.delivery} d
          SET payload = ${replaced('d.payload::text', '$3', '$4', '$5', '$6')}::jsonb
         FROM ${t.keyed ? CARDHOLDER_KEYS : 'redemption x'}
        WHERE x.institution_id = $1 AND x.cardholder_token = $2
          AND ${t.keyed ? ON_KEY : 'd.redemption_id = x.id'}`,
      [
        institutionId,
        r.pseudonym,
        r.jsonToken,
        r.jsonPseudonym,
        r.jsonMasked,
        r.jsonPseudonymMasked,
      ],
    );
    await m.query(
      `UPDATE ${t.attempt} a
          SET response_excerpt = ${replaced('a.response_excerpt', '$3', '$4', '$5', '$6')},
              error_message = ${replaced('a.error_message', '$3', '$4', '$5', '$6')},
              request_headers = ${replaced('a.request_headers::text', '$7', '$8', '$9', '$10')}::jsonb
         FROM ${t.keyed ? CARDHOLDER_KEYS : `redemption x JOIN ${t.delivery} d ON d.redemption_id = x.id`}
        WHERE x.institution_id = $1 AND x.cardholder_token = $2
          AND ${
            t.keyed
              ? 'a.institution_id = k.institution_id AND a.delivery_created_at = k.created_at AND a.delivery_id = k.id'
              : 'a.delivery_id = d.id'
          }
          AND (${holds('a.response_excerpt', '$3', '$5')} OR ${holds('a.error_message', '$3', '$5')}
               OR ${holds('a.request_headers::text', '$7', '$9')})`,
      [
        institutionId,
        r.pseudonym,
        r.token,
        r.pseudonym,
        r.masked,
        r.pseudonymMasked,
        r.jsonToken,
        r.jsonPseudonym,
        r.jsonMasked,
        r.jsonPseudonymMasked,
      ],
    );
    return n;
  }

  /**
   * The webhook tables: the partitioned ones, reached through webhook_delivery_key, and while
   * `npm run migrate -- --move-partitions` has rows left to move, the old ones (by redemption_id),
   * old first (as eventTables).
   */
  private async webhookTables(m: EntityManager | DataSource): Promise<WebhookTables[]> {
    const current = { delivery: 'webhook_delivery', attempt: 'webhook_attempt', keyed: true };
    const old = unpartitionedName('webhook_delivery');
    const [row]: { exists: boolean }[] = await m.query(
      `SELECT to_regclass($1) IS NOT NULL AS exists`,
      [old],
    );
    return row.exists
      ? [{ delivery: old, attempt: unpartitionedName('webhook_attempt'), keyed: false }, current]
      : [current];
  }

  /**
   * The funnel's event tables: the partitioned one and, while `npm run migrate -- --move-partitions`
   * has rows left to move, the old one (docs/retention.md), old first: a row the move commits in
   * between is found in the partitioned table by the next statement, and one it holds is waited
   * for and then found there.
   */
  private async eventTables(m: EntityManager | DataSource): Promise<string[]> {
    const old = unpartitionedName('engagement_event');
    const [row]: { exists: boolean }[] = await m.query(
      `SELECT to_regclass($1) IS NOT NULL AS exists`,
      [old],
    );
    return row.exists ? [old, 'engagement_event'] : ['engagement_event'];
  }

  /**
   * Widget events (engagement_event_cardholder_idx, on every partition and on the old table) and
   * the cardholder's number in the funnel's viewer bitmaps (its primary key): the number moves to
   * the pseudonym, so every roll-up keeps its count, and the token, if it comes back, gets a new
   * number.
   */
  async engagement(m: EntityManager, institutionId: string, r: Replacements): Promise<number> {
    let n = 0;
    for (const table of await this.eventTables(m)) {
      const [, changed]: [unknown, number] = await m.query(
        `UPDATE ${table} SET cardholder_token = $3 WHERE institution_id = $1 AND cardholder_token = $2`,
        [institutionId, r.token, r.pseudonym],
      );
      n += changed;
    }
    await m.query(
      `UPDATE engagement_cardholder_number SET cardholder_token = $3
        WHERE institution_id = $1 AND cardholder_token = $2`,
      [institutionId, r.token, r.pseudonym],
    );
    return n;
  }

  /**
   * The institution's CSV uploads whose file or report holds the token (csv_upload has no token
   * column: each upload of the institution is searched, csv_upload_report_idx).
   */
  async uploadsWithToken(
    m: EntityManager,
    institutionId: string,
    r: Replacements,
  ): Promise<UploadWithToken[]> {
    return m.query(
      `SELECT id, content, invalid::text AS invalid_text, error_message
         FROM csv_upload
        WHERE institution_id = $1
          AND (position(convert_to($2, 'UTF8') IN coalesce(content, ''::bytea)) > 0
               OR strpos(invalid::text, $3) > 0 OR strpos(coalesce(error_message, ''), $2) > 0)`,
      [institutionId, r.token, r.jsonToken],
    );
  }

  async rewriteUpload(
    m: EntityManager,
    id: string,
    content: Buffer | null,
    r: Replacements,
  ): Promise<void> {
    await m.query(
      `UPDATE csv_upload
          SET content = $2,
              invalid = replace(invalid::text, $3, $4)::jsonb,
              error_message = replace(error_message, $5, $6)
        WHERE id = $1`,
      [id, content, r.jsonToken, r.jsonPseudonym, r.token, r.pseudonym],
    );
  }

  /**
   * Audit entries (security_event details) and inbox texts that quote the token, within the
   * institution (security_event_report_idx, inbox_message_report_idx). The masked form is left
   * alone here: in texts about the whole institution it may be another cardholder's.
   */
  async auditAndInbox(m: EntityManager, institutionId: string, r: Replacements): Promise<void> {
    await m.query(
      `UPDATE security_event SET details = replace(details::text, $2, $3)::jsonb
        WHERE institution_id = $1 AND strpos(details::text, $2) > 0`,
      [institutionId, r.jsonToken, r.jsonPseudonym],
    );
    await m.query(
      `UPDATE inbox_message SET title = replace(title, $2, $3), body = replace(body, $2, $3)
        WHERE institution_id = $1 AND (strpos(title, $2) > 0 OR strpos(body, $2) > 0)`,
      [institutionId, r.token, r.pseudonym],
    );
  }

  /**
   * Offers whose holdout applies to the institution's cardholders, or may still be set (the offer
   * has not been live): an erased cardholder's bucket for each is kept with the pseudonym.
   */
  async holdoutOffers(m: EntityManager, institutionId: string): Promise<string[]> {
    const rows: { id: string }[] = await m.query(
      `SELECT o.id FROM offer o
        WHERE (o.holdout_bps > 0 OR NOT o.has_been_live)
          AND (NOT o.targeted OR EXISTS (
                SELECT 1 FROM offer_target t WHERE t.offer_id = o.id AND t.institution_id = $1))`,
      [institutionId],
    );
    return rows.map((r) => r.id);
  }

  async keepHoldoutBuckets(
    m: EntityManager,
    institutionId: string,
    pseudonym: string,
    buckets: { offerId: string; bucket: number }[],
  ): Promise<void> {
    if (!buckets.length) return;
    await m.query(
      `INSERT INTO erased_holdout_bucket (institution_id, cardholder_token, offer_id, bucket)
       SELECT $1::uuid, $2::text, b.offer_id, b.bucket FROM unnest($3::uuid[], $4::int[]) AS b(offer_id, bucket)
       ON CONFLICT DO NOTHING`,
      [institutionId, pseudonym, buckets.map((b) => b.offerId), buckets.map((b) => b.bucket)],
    );
  }

  // ------------------------------------------------------------------ right of access

  /** What is stored about a cardholder of the institution, each list oldest first. */
  async export(institutionId: string, token: string): Promise<CardholderRecords> {
    const q = <T>(sql: string) => this.db.query(sql, [institutionId, token]) as Promise<T[]>;
    const eventsSql = (await this.eventTables(this.db))
      .map(
        (table) =>
          `SELECT kind, offer_id, occurred_at, id FROM ${table}
            WHERE institution_id = $1 AND cardholder_token = $2`,
      )
      .join(' UNION ALL ');
    const deliveriesSql = (await this.webhookTables(this.db))
      .map(
        (t) =>
          `SELECT d.id, d.event, d.status, d.created_at, d.delivered_at, d.payload
             FROM ${t.keyed ? CARDHOLDER_DELIVERIES : `redemption x JOIN ${t.delivery} d ON d.redemption_id = x.id`}
            WHERE x.institution_id = $1 AND x.cardholder_token = $2`,
      )
      .join(' UNION ALL ');
    const [enrollments, transactions, redemptions, events, deliveries] = await Promise.all([
      q<ExportEnrollment>(
        `SELECT co.id, co.offer_id, co.status, co.card_token, co.redemption_count, co.added_at,
                o.goal_type IS NOT NULL AS goal, co.goal_round, co.goal_progress::text AS goal_progress,
                co.goal_spend::text AS goal_spend
           FROM cardholder_offer co JOIN offer o ON o.id = co.offer_id
          WHERE co.institution_id = $1 AND co.cardholder_token = $2
          ORDER BY co.added_at, co.id`,
      ),
      q<ExportTransaction>(
        `SELECT id, transaction_ref, kind, instrument_token, instrument_type, merchant_id,
                merchant_identifier, merchant_identifier_type, merchant_descriptor, mcc, network,
                channel, amount::text AS amount, currency, transacted_at, received_at, status,
                original_transaction_ref, source, history
           FROM transaction WHERE institution_id = $1 AND cardholder_token = $2
          ORDER BY transacted_at, id`,
      ),
      q<ExportRedemption>(
        `SELECT id, offer_id, transaction_id, currency, purchase_amount::text AS purchase_amount,
                cashback_amount::text AS cashback_amount,
                institution_payout_amount::text AS institution_payout_amount,
                status, created_at, settled_at, reversed_at
           FROM redemption WHERE institution_id = $1 AND cardholder_token = $2
          ORDER BY created_at, id`,
      ),
      q<ExportEvent>(
        `SELECT kind, offer_id, occurred_at FROM (${eventsSql}) e ORDER BY occurred_at, id`,
      ),
      q<ExportDelivery>(`SELECT * FROM (${deliveriesSql}) d ORDER BY d.created_at, d.id`),
    ]);
    return { enrollments, transactions, redemptions, events, deliveries };
  }
}

export interface ExportEnrollment {
  id: string;
  offer_id: string;
  status: string;
  card_token: string | null;
  redemption_count: number;
  added_at: Date;
  goal: boolean;
  goal_round: number;
  goal_progress: string;
  goal_spend: string;
}
export interface ExportTransaction {
  id: string;
  transaction_ref: string;
  kind: string;
  instrument_token: string | null;
  instrument_type: string | null;
  merchant_id: string | null;
  merchant_identifier: string | null;
  merchant_identifier_type: string | null;
  merchant_descriptor: string | null;
  mcc: string | null;
  network: string | null;
  channel: string | null;
  amount: string;
  currency: string | null;
  transacted_at: Date;
  received_at: Date;
  status: string;
  original_transaction_ref: string | null;
  source: string;
  history: boolean;
}
export interface ExportRedemption {
  id: string;
  offer_id: string;
  transaction_id: string;
  currency: string;
  purchase_amount: string;
  cashback_amount: string;
  institution_payout_amount: string;
  status: string;
  created_at: Date;
  settled_at: Date | null;
  reversed_at: Date | null;
}
export interface ExportEvent {
  kind: string;
  offer_id: string | null;
  occurred_at: Date;
}
export interface ExportDelivery {
  id: string;
  event: string;
  status: string;
  created_at: Date;
  delivered_at: Date | null;
  payload: Record<string, unknown>;
}
export interface CardholderRecords {
  enrollments: ExportEnrollment[];
  transactions: ExportTransaction[];
  redemptions: ExportRedemption[];
  events: ExportEvent[];
  deliveries: ExportDelivery[];
}
