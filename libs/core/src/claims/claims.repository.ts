import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { cursorColumn, KeysetAfter, keysetSql, returnedRows } from '@app/db';
import {
  LIFECYCLE_DEFAULTS,
  PROGRAM_DEFAULTS,
  type ClaimDecider,
  type ClaimStatus,
  type PurchaseEvidence,
  type RewardOn,
  type TransactionTypeValue,
} from '@app/domain';
import { withKeyed } from '../ingestion/transaction-store';

/** A claim as stored, with its keyset position. */
export interface ClaimRow {
  id: string;
  institution_id: string;
  offer_id: string;
  transaction_ref: string;
  cardholder_token: string;
  status: ClaimStatus;
  reasons: string[];
  redemption_id: string | null;
  decided_by: ClaimDecider | null;
  purchase: PurchaseEvidence | null;
  note: string | null;
  decision_note: string | null;
  created_at: Date;
  decided_at: Date | null;
  cursor_t: string;
}

/** A stored transaction as a claim reads it, under its lock. */
export interface ClaimedTransaction {
  id: string;
  kind: TransactionTypeValue;
  history: boolean;
  cardholder_token: string;
  transacted_at: Date;
  reward_on: RewardOn;
}

/** A decision written on a claim. */
export interface ClaimWrite {
  status: ClaimStatus;
  reasons: string[];
  redemptionId: string | null;
  decidedBy: ClaimDecider | null;
}

const COLUMNS = `c.id, c.institution_id, c.offer_id, c.transaction_ref, c.cardholder_token, c.status, c.reasons,
  c.redemption_id, c.decided_by, c.purchase, c.note, c.decision_note, c.created_at, c.decided_at, ${cursorColumn('c')}`;

/**
 * Every statement on claim, and the reads a claim's decision needs beside matching's own (the
 * offer offered to the institution, the stored record under its lock, the claim window). Writes
 * take the caller's transaction: a claim is decided and stored in one.
 */
@Injectable()
export class ClaimsRepository {
  constructor(private readonly db: DataSource) {}

  /** Whether the offer exists and is offered to the institution (untargeted, or targeted at it). */
  async offered(institutionId: string, offerId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `SELECT 1 FROM offer o
        WHERE o.id = $2
          AND (NOT o.targeted OR EXISTS (SELECT 1 FROM offer_target t WHERE t.offer_id = o.id AND t.institution_id = $1))`,
      [institutionId, offerId],
    );
    return rows.length > 0;
  }

  /**
   * Serializes the claims of one (institution, offer, transaction_ref) until the caller's
   * transaction ends: two identical claims at the same moment make one claim, the second reads it.
   */
  async lockKey(
    m: EntityManager,
    institutionId: string,
    offerId: string,
    transactionRef: string,
  ): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `claim:${institutionId}:${offerId}:${transactionRef}`,
    ]);
  }

  /** The claim of (institution, offer, transaction_ref) (claim_unique), if any. */
  async findByKey(
    m: EntityManager,
    institutionId: string,
    offerId: string,
    transactionRef: string,
  ): Promise<ClaimRow | undefined> {
    const rows: ClaimRow[] = await m.query(
      `SELECT ${COLUMNS} FROM claim c WHERE c.institution_id = $1 AND c.offer_id = $2 AND c.transaction_ref = $3`,
      [institutionId, offerId, transactionRef],
    );
    return rows[0];
  }

  /**
   * The stored transaction of (institution, ref), taken FOR UPDATE (a matching chunk holding it is
   * waited for; a chunk that comes later skips it), with the program's reward_on.
   */
  async lockTransaction(
    m: EntityManager,
    institutionId: string,
    transactionRef: string,
  ): Promise<ClaimedTransaction | undefined> {
    const rows: ClaimedTransaction[] = await m.query(
      `${withKeyed('(SELECT * FROM transaction_key WHERE institution_id = $1 AND transaction_ref = $2) k', { lock: 'FOR UPDATE' })}
       SELECT t.id, t.kind, t.history, t.cardholder_token, t.transacted_at,
              COALESCE(p.reward_on, '${LIFECYCLE_DEFAULTS.rewardOn}') AS reward_on
         FROM t
         LEFT JOIN program p ON p.institution_id = t.institution_id`,
      [institutionId, transactionRef],
    );
    return rows[0];
  }

  /** The program's claim_window_days (the default when it has no program). */
  async windowDays(m: EntityManager, institutionId: string): Promise<number> {
    const rows: { days: number }[] = await m.query(
      `SELECT claim_window_days AS days FROM program WHERE institution_id = $1`,
      [institutionId],
    );
    return rows[0]?.days ?? PROGRAM_DEFAULTS.claimWindowDays;
  }

  async insert(
    m: EntityManager,
    c: {
      institutionId: string;
      offerId: string;
      transactionRef: string;
      cardholderToken: string;
      purchase: PurchaseEvidence | null;
      note: string | null;
    },
    d: ClaimWrite,
  ): Promise<ClaimRow> {
    const rows: ClaimRow[] = await m.query(
      `INSERT INTO claim AS c (institution_id, offer_id, transaction_ref, cardholder_token, purchase, note,
                               status, reasons, redemption_id, decided_by, decided_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $10::text IS NULL THEN NULL ELSE clock_timestamp() END)
       RETURNING ${COLUMNS}`,
      [
        c.institutionId,
        c.offerId,
        c.transactionRef,
        c.cardholderToken,
        c.purchase === null ? null : JSON.stringify(c.purchase),
        c.note,
        d.status,
        d.reasons,
        d.redemptionId,
        d.decidedBy,
      ],
    );
    return rows[0];
  }

  /** A new decision on a claim (a repeat re-evaluated, an operator's decision). */
  async decide(
    m: EntityManager,
    id: string,
    d: ClaimWrite,
    decisionNote?: string | null,
  ): Promise<ClaimRow> {
    const result: unknown = await m.query(
      `UPDATE claim c SET status = $2, reasons = $3, redemption_id = $4, decided_by = $5,
                          decided_at = clock_timestamp(), decision_note = COALESCE($6, c.decision_note)
        WHERE c.id = $1
        RETURNING ${COLUMNS}`,
      [id, d.status, d.reasons, d.redemptionId, d.decidedBy, decisionNote ?? null],
    );
    return returnedRows<ClaimRow>(result)[0];
  }

  /** One claim, taken FOR UPDATE (an operator's decision). */
  async lockById(m: EntityManager, id: string): Promise<ClaimRow | undefined> {
    const rows: ClaimRow[] = await m.query(
      `SELECT ${COLUMNS} FROM claim c WHERE c.id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0];
  }

  /** One claim; with an institution, only if it is that institution's. */
  async get(id: string, institutionId: string | null): Promise<ClaimRow | undefined> {
    const rows: ClaimRow[] = await this.db.query(
      `SELECT ${COLUMNS} FROM claim c WHERE c.id = $1 AND ($2::uuid IS NULL OR c.institution_id = $2)`,
      [id, institutionId],
    );
    return rows[0];
  }

  /**
   * A keyset page of claims, newest first: one institution's (claim_list_idx), or every
   * institution's in one status for operators (claim_status_idx).
   */
  list(
    filter: { institutionId: string | null; status: ClaimStatus | null },
    after: KeysetAfter | null,
    limit: number,
  ): Promise<ClaimRow[]> {
    const k = keysetSql({
      alias: 'c',
      after,
      limit,
      params: [filter.institutionId, filter.status],
    });
    return this.db.query(
      `SELECT ${COLUMNS} FROM claim c
        WHERE ($1::uuid IS NULL OR c.institution_id = $1) AND ($2::text IS NULL OR c.status = $2) ${k.and}
        ${k.orderLimit}`,
      k.params,
    );
  }
}
