import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { prepared, type TransactionSource } from '@app/db';
import type { TransactionEvent } from '@app/domain';
import { CLAIM_MESSAGES } from '../claims/claim-messages';
import { recordActivitySql } from './cardholder-activity';

/** A validated event and the institution it belongs to (always the API key's or the upload's). */
export interface NewTransaction {
  institutionId: string;
  event: TransactionEvent;
}

const key = (institutionId: string, ref: string) => `${institutionId}\u0000${ref}`;

/**
 * A statement's first step: the transactions reached through their keys, as the CTE `t`, computed
 * once (MATERIALIZED) whatever the rest of the statement joins to it. `keys` yields transaction_key
 * rows as alias `k` (keysOfIds, keysOfRefs or a filtered key table); one LATERAL probe per key reads
 * its transaction in the key's month alone, pruned at run time (docs/performance.md#transactions).
 * Each step is fenced (OFFSET 0, the probe's row lock, the CTE): free to reorder, the planner
 * joined the probe to the whole key table first and the ids last, or looped over another table's
 * rows reading the ids' keys each time (seconds per matching chunk, growing with the tables).
 * `where` narrows the probe (`AND …` on alias x, which may name the keys' source); `lock` locks
 * the row (`FOR …`, SKIP LOCKED).
 */
export const withKeyed = (keys: string, probe: { where?: string; lock?: string } = {}) => `
  WITH t AS MATERIALIZED (
    SELECT x.* FROM ${keys}
    CROSS JOIN LATERAL (
      SELECT x.* FROM transaction x
       WHERE x.institution_id = k.institution_id AND x.received_at = k.received_at AND x.id = k.transaction_id
             ${probe.where ?? ''} ${probe.lock ?? 'OFFSET 0'}
    ) x)`;

/**
 * `alias` is the transaction whose id is `id` (a parameter or column), in its month only: the
 * key's tenant and month as scalar subqueries, so PostgreSQL prunes to one month when the
 * statement starts (for an UPDATE, which cannot be fenced like a read).
 */
export const transactionByIdSql = (alias: string, id: string) =>
  `${alias}.institution_id = (SELECT k.institution_id FROM transaction_key k WHERE k.transaction_id = ${id})
   AND ${alias}.received_at = (SELECT k.received_at FROM transaction_key k WHERE k.transaction_id = ${id})
   AND ${alias}.id = ${id}`;

/**
 * The transaction of key row `key` (a transaction_key alias), as `alias`, read in the key's month
 * alone: the body of a LATERAL subquery (`AND …` and a fence such as `OFFSET 0` may follow).
 */
export const byKeySql = (alias: string, key: string) =>
  `SELECT ${alias}.* FROM transaction ${alias}
    WHERE ${alias}.institution_id = ${key}.institution_id AND ${alias}.received_at = ${key}.received_at
      AND ${alias}.id = ${key}.transaction_id`;

/**
 * The keys of the transaction ids of `ids` (a FROM item aliased `ids` with a column `id`, by default
 * the uuid[] parameter $1), alias `k`; one index probe per id.
 */
export const keysOfIds = (ids = 'unnest($1::uuid[]) AS ids(id)') => `${ids}
    CROSS JOIN LATERAL (SELECT * FROM transaction_key WHERE transaction_id = ids.id OFFSET 0) k`;

/** The keys of the (institution_id, transaction_ref) pairs of `pairs` (alias `k`; one probe per pair). */
export const keysOfRefs = (pairs: string) => `${pairs}
    CROSS JOIN LATERAL (
      SELECT * FROM transaction_key
       WHERE institution_id = u.institution_id AND transaction_ref = u.transaction_ref OFFSET 0
    ) k`;

/**
 * A scalar subquery over the transaction stored under (`institutionId`, `ref`), found through its
 * key and read in its month alone: `select` over alias `alias` (the row), `where` narrowing it
 * (`AND …` on the alias); no row when the reference is not stored.
 */
export const storedByRefSql = (
  alias: string,
  institutionId: string,
  ref: string,
  select: string,
  where = '',
) => `(SELECT ${select} FROM transaction_key ${alias}_k
    CROSS JOIN LATERAL (
      SELECT ${alias}.* FROM transaction ${alias}
       WHERE ${alias}.institution_id = ${alias}_k.institution_id AND ${alias}.received_at = ${alias}_k.received_at
         AND ${alias}.id = ${alias}_k.transaction_id ${where} OFFSET 0
    ) ${alias}
   WHERE ${alias}_k.institution_id = ${institutionId} AND ${alias}_k.transaction_ref = ${ref})`;

/**
 * The sum of the refunds stored that name one of `refs` (`= x` or `IN (…)`, on the references a
 * refund's original_transaction_ref may hold) at institution `institutionId`, 0 when there are
 * none (numeric): the refunds' keys by transaction_key_refund_of_idx (the key trigger names on each
 * refund's key what it refunds), each refund read in its month alone. A month left with retention
 * takes its refunds with it, as it did when they were read from the months directly.
 */
export const refundsSumSql = (institutionId: string, refs: string) => `
  (SELECT COALESCE(sum(f.amount), 0)
     FROM transaction_key rk
     CROSS JOIN LATERAL (
       SELECT f.amount FROM transaction f
        WHERE f.institution_id = rk.institution_id AND f.received_at = rk.received_at AND f.id = rk.transaction_id
          AND f.kind = 'refund' OFFSET 0
     ) f
    WHERE rk.institution_id = ${institutionId} AND rk.refund_of ${refs})`;

const COLUMNS = `institution_id, transaction_ref, cardholder_token, instrument_token, instrument_type,
  merchant_identifier, merchant_identifier_type, merchant_id, mcc, merchant_descriptor,
  network, amount, currency, transacted_at, kind, original_transaction_ref, channel`;
const UNNEST = `unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::uuid[],
  $9::text[], $10::text[], $11::text[], $12::numeric[], $13::text[], $14::timestamptz[], $15::text[],
  $16::text[], $17::text[])`;

const U_COLUMNS = `u(institution_id, transaction_ref, cardholder_token, instrument_token, instrument_type,
  merchant_identifier, merchant_identifier_type, merchant_id, mcc, merchant_descriptor, network, amount, currency,
  transacted_at, kind, original_transaction_ref, channel)`;

/**
 * The idempotency key first (transaction_key, unique per institution with no time bound: it
 * decides the duplicate, also under concurrent posts of one reference), then the transaction with
 * the key's id and month (received_at, the partition key), for the keys this statement inserted,
 * and its purchases recorded in cardholder_activity (the lift report's eligible cardholders): a
 * reference already stored inserts nothing, so it records nothing.
 */
const keyed = (insert: string) => `
  WITH u AS (SELECT * FROM ${UNNEST} AS ${U_COLUMNS}),
  k AS (
    INSERT INTO transaction_key (institution_id, transaction_ref, transaction_id, received_at)
    SELECT u.institution_id, u.transaction_ref, uuid_time_ordered(), now() FROM u
    ON CONFLICT DO NOTHING
    RETURNING institution_id, transaction_ref, transaction_id, received_at),
  ins AS (${insert}
    RETURNING id, institution_id, transaction_ref, cardholder_token, transacted_at, kind),
  activity AS (${recordActivitySql('ins')})
  SELECT id, institution_id, transaction_ref FROM ins`;

/**
 * The merchant of transaction `alias` as matching and the insert resolve it: a sender-resolved
 * merchant_id that exists, else the identifier through merchant_identifier's unique (type, value).
 * `joins` (aliases m, mi) go after the FROM item; `id` is null when neither resolves.
 */
export const resolvedMerchantSql = (alias: string) => ({
  joins: `LEFT JOIN merchant m ON m.id = ${alias}.merchant_id
    LEFT JOIN merchant_identifier mi ON mi.type = ${alias}.merchant_identifier_type AND mi.value = ${alias}.merchant_identifier`,
  id: `COALESCE(m.id, mi.merchant_id)`,
});

const merchant = resolvedMerchantSql('u');

/**
 * The rows inserted, with the merchant resolved (as matching would; a sender's merchant_id that
 * does not exist is kept as sent): matching then writes back the same merchant_id, so its status
 * write changes no indexed column (a HOT update, docs/performance.md). History rows are final on
 * insert: they count for audiences and personalization as soon as the batch is answered; their
 * status is `unmatched` (`merchant_unresolved` without a merchant) and they are never queued for
 * matching. Others are `received` (the column's default), which puts them in the backlog.
 */
const insertSql = (history: boolean) =>
  prepared(
    keyed(`
  INSERT INTO transaction (id, received_at, ${COLUMNS}, source${history ? ', history, status, processed_at' : ''})
  SELECT k.transaction_id, k.received_at, u.institution_id, u.transaction_ref, u.cardholder_token, u.instrument_token,
         u.instrument_type, u.merchant_identifier, u.merchant_identifier_type, COALESCE(${merchant.id}, u.merchant_id),
         u.mcc, u.merchant_descriptor, u.network, u.amount, u.currency, u.transacted_at, u.kind, u.original_transaction_ref,
         u.channel, $18::text${
           history
             ? `, true,
         CASE WHEN ${merchant.id} IS NULL THEN 'merchant_unresolved' ELSE 'unmatched' END, now()`
             : ''
         }
    FROM u
    JOIN k ON k.institution_id = u.institution_id AND k.transaction_ref = u.transaction_ref
    ${merchant.joins}`),
  );
const INSERT_SQL = insertSql(false);
const INSERT_HISTORY_SQL = insertSql(true);

/**
 * The transaction table's write path. One set-based statement per call, whatever the number of
 * rows: the keys `INSERT … SELECT FROM unnest(17 arrays) ON CONFLICT DO NOTHING RETURNING`, then
 * the transactions of the keys inserted (18 bind parameters, the arrays and the source, not
 * 18,000), so transaction_key's primary key decides duplicates atomically even under concurrent
 * posts of the same reference.
 */
@Injectable()
export class TransactionStore {
  constructor(private readonly db: DataSource) {}

  /**
   * Inserts the rows (which must not repeat an (institution, ref) among themselves) and returns,
   * per row, the new id or null when the reference was already stored. Committed on return,
   * or with the caller's transaction `within` (a claim's approval stores its purchase so).
   */
  async insert(
    rows: readonly NewTransaction[],
    source: TransactionSource,
    options: { history?: boolean; within?: EntityManager } = {},
  ): Promise<(string | null)[]> {
    if (!rows.length) return [];
    const cols: unknown[][] = Array.from({ length: 17 }, () => new Array(rows.length));
    rows.forEach(({ institutionId, event: e }, i) => {
      cols[0][i] = institutionId;
      cols[1][i] = e.transactionRef;
      cols[2][i] = e.cardholderToken;
      cols[3][i] = e.instrumentToken;
      cols[4][i] = e.instrumentType;
      cols[5][i] = e.merchantIdentifier;
      cols[6][i] = e.merchantIdentifierType;
      cols[7][i] = e.merchantId;
      cols[8][i] = e.mcc;
      cols[9][i] = e.merchantDescriptor;
      cols[10][i] = e.network;
      cols[11][i] = e.amount;
      cols[12][i] = e.currency;
      cols[13][i] = e.transactedAt;
      cols[14][i] = e.kind;
      cols[15][i] = e.originalTransactionRef;
      cols[16][i] = e.channel ?? null;
    });
    const inserted: { id: string; institution_id: string; transaction_ref: string }[] = await (
      options.within ?? this.db
    ).query(options.history ? INSERT_HISTORY_SQL : INSERT_SQL, [...cols, source]);
    const ids = new Map(inserted.map((r) => [key(r.institution_id, r.transaction_ref), r.id]));
    return rows.map((r) => ids.get(key(r.institutionId, r.event.transactionRef)) ?? null);
  }

  /**
   * Duplicates of references that an approved claim stored (source `claim`) and that differ from
   * it in amount, merchant identifier or cardholder: one inbox message per such reference
   * (claims.md). One statement for the given duplicates; the rest are left alone.
   */
  async noteClaimedDuplicates(rows: readonly NewTransaction[]): Promise<void> {
    if (!rows.length) return;
    await this.db.query(
      `${withKeyed(
        keysOfRefs(`unnest($1::uuid[], $2::text[], $3::text[], $4::numeric[], $5::text[])
           AS u(institution_id, transaction_ref, cardholder_token, amount, merchant_identifier)`),
        {
          where: `AND x.source = 'claim'
                  AND (x.amount <> u.amount OR x.cardholder_token <> u.cardholder_token
                       OR x.merchant_identifier IS DISTINCT FROM u.merchant_identifier)`,
        },
      )}
       INSERT INTO inbox_message (institution_id, kind, title, body, dedupe_key)
       SELECT t.institution_id, 'claim.duplicate_differs', $6::text, replace($7::text, '{ref}', t.transaction_ref),
              'claim.duplicate_differs:' || t.id
         FROM t
       ON CONFLICT (institution_id, dedupe_key) DO NOTHING`,
      [
        rows.map((r) => r.institutionId),
        rows.map((r) => r.event.transactionRef),
        rows.map((r) => r.event.cardholderToken),
        rows.map((r) => r.event.amount),
        rows.map((r) => r.event.merchantIdentifier),
        CLAIM_MESSAGES.duplicateDiffers.title,
        CLAIM_MESSAGES.duplicateDiffers.body,
      ],
    );
  }

  /**
   * The stored ids of (institution, ref) pairs (transaction_key alone: a reference whose row left
   * with its month still answers its id); missing pairs are absent from the map.
   */
  async findIds(
    pairs: readonly { institutionId: string; transactionRef: string }[],
  ): Promise<Map<string, string>> {
    if (!pairs.length) return new Map();
    const rows: { id: string; institution_id: string; transaction_ref: string }[] =
      await this.db.query(
        `SELECT t.transaction_id AS id, t.institution_id, t.transaction_ref
         FROM unnest($1::uuid[], $2::text[]) AS k(institution_id, transaction_ref)
         JOIN transaction_key t ON t.institution_id = k.institution_id AND t.transaction_ref = k.transaction_ref`,
        [pairs.map((p) => p.institutionId), pairs.map((p) => p.transactionRef)],
      );
    return new Map(rows.map((r) => [key(r.institution_id, r.transaction_ref), r.id]));
  }

  static key = key;
}
