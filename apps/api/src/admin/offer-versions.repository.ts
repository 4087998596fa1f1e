import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { returnedRows } from '@app/db';
import type { AuditActor, FieldChange, OfferVersionStatus, StoredQualification } from '@app/domain';

/**
 * A version's terms as stored: the offer's versioned columns (minor units, qualification as
 * stored) and its targeting. Everything but texts, priority and status.
 */
export interface VersionTerms {
  min_spend: number;
  reward_type: string;
  cashback_amount: number;
  cashback_percent: number | null;
  merchant_fee_amount: number;
  starts_at: string;
  expires_at: string;
  budget_total: number | null;
  segments: string[];
  max_redemptions_per_cardholder: number;
  qualification: StoredQualification | null;
  goal_type: string | null;
  goal_target: number | null;
  holdout_bps: number;
  institution_ids: string[];
}

export interface OfferVersionRow {
  offer_id: string;
  number: number;
  id: string;
  status: OfferVersionStatus;
  terms: VersionTerms;
  changes: FieldChange[];
  created_by: AuditActor;
  changed_by: AuditActor;
  editors: string[];
  approved_by: AuditActor | null;
  approved_at: Date | null;
  effective_from: Date | null;
  review_note: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `offer_id, number, id, status, terms, changes, created_by, changed_by, editors, approved_by,
  approved_at, effective_from, review_note, created_at, updated_at`;

/** Every statement over offer_version for the operators' API (the offer row is locked by the caller). */
@Injectable()
export class OfferVersionsRepository {
  constructor(private readonly db: DataSource) {}

  /** Every version of the offer, newest first. */
  list(offerId: string, m: EntityManager = this.db.manager): Promise<OfferVersionRow[]> {
    return m.query(
      `SELECT ${COLUMNS} FROM offer_version WHERE offer_id = $1 ORDER BY number DESC`,
      [offerId],
    );
  }

  /** The open version (draft or in review) and the live one (approved), each or none. */
  async current(
    offerId: string,
    m: EntityManager,
  ): Promise<{ open: OfferVersionRow | undefined; live: OfferVersionRow | undefined }> {
    const rows: OfferVersionRow[] = await m.query(
      `SELECT ${COLUMNS} FROM offer_version
        WHERE offer_id = $1 AND status IN ('draft', 'in_review', 'approved') ORDER BY number DESC`,
      [offerId],
    );
    return {
      open: rows.find((r) => r.status === 'draft' || r.status === 'in_review'),
      live: rows.find((r) => r.status === 'approved'),
    };
  }

  async insert(
    m: EntityManager,
    v: {
      offerId: string;
      status: OfferVersionStatus;
      terms: VersionTerms;
      changes: FieldChange[];
      actor: AuditActor;
      approved?: { by: AuditActor; effectiveFrom: Date | null };
    },
  ): Promise<OfferVersionRow> {
    const [row]: OfferVersionRow[] = await m.query(
      `INSERT INTO offer_version (offer_id, number, status, terms, changes, created_by, changed_by, editors,
                                  approved_by, approved_at, effective_from)
       SELECT $1, COALESCE(max(number), 0) + 1, $2, $3::jsonb, $4::jsonb, $5::jsonb, $5::jsonb,
              CASE WHEN $6::uuid IS NULL THEN '{}'::uuid[] ELSE ARRAY[$6::uuid] END,
              $7::jsonb, CASE WHEN $7::jsonb IS NULL THEN NULL ELSE now() END, $8::timestamptz
         FROM offer_version WHERE offer_id = $1
       RETURNING ${COLUMNS}`,
      [
        v.offerId,
        v.status,
        JSON.stringify(v.terms),
        JSON.stringify(v.changes),
        JSON.stringify(v.actor),
        v.actor.type === 'operator' ? v.actor.id : null,
        v.approved ? JSON.stringify(v.approved.by) : null,
        v.approved?.effectiveFrom ?? null,
      ],
    );
    return row;
  }

  /** A change to an open version: its terms, what they change, and one more editor. */
  async revise(
    m: EntityManager,
    v: OfferVersionRow,
    terms: VersionTerms,
    changes: FieldChange[],
    actor: AuditActor,
  ): Promise<OfferVersionRow> {
    const [row] = returnedRows<OfferVersionRow>(
      await m.query(
        `UPDATE offer_version
          SET terms = $3::jsonb, changes = $4::jsonb, changed_by = $5::jsonb, updated_at = now(),
              editors = CASE WHEN $6::uuid IS NULL OR $6::uuid = ANY(editors) THEN editors ELSE editors || $6::uuid END
        WHERE offer_id = $1 AND number = $2
      RETURNING ${COLUMNS}`,
        [
          v.offer_id,
          v.number,
          JSON.stringify(terms),
          JSON.stringify(changes),
          JSON.stringify(actor),
          actor.type === 'operator' ? actor.id : null,
        ],
      ),
    );
    return row;
  }

  /** submit (draft → in_review) and reject (in_review → draft, with the approver's note). */
  async setReview(
    m: EntityManager,
    v: OfferVersionRow,
    status: 'draft' | 'in_review',
    note: string | null,
  ): Promise<OfferVersionRow> {
    const [row] = returnedRows<OfferVersionRow>(
      await m.query(
        `UPDATE offer_version SET status = $3, review_note = $4, updated_at = now()
        WHERE offer_id = $1 AND number = $2 RETURNING ${COLUMNS}`,
        [v.offer_id, v.number, status, note],
      ),
    );
    return row;
  }

  /**
   * The version goes live: approved by `by`, its terms what the row now holds; the version live
   * until now is superseded. `timed`: it judges purchases made from now on (offer.terms_from),
   * else every purchase (an edit made with approval off, as edits always applied).
   */
  async approve(
    m: EntityManager,
    offerId: string,
    number: number,
    terms: VersionTerms,
    by: AuditActor,
    timed: boolean,
  ): Promise<OfferVersionRow> {
    await m.query(
      `UPDATE offer_version SET status = 'superseded', updated_at = now()
        WHERE offer_id = $1 AND status = 'approved' AND number <> $2`,
      [offerId, number],
    );
    const [row] = returnedRows<OfferVersionRow>(
      await m.query(
        `UPDATE offer_version
          SET status = 'approved', terms = $3::jsonb, approved_by = $4::jsonb, approved_at = now(),
              effective_from = CASE WHEN $5::boolean THEN now() END, review_note = NULL, updated_at = now()
        WHERE offer_id = $1 AND number = $2 RETURNING ${COLUMNS}`,
        [offerId, number, JSON.stringify(terms), JSON.stringify(by), timed],
      ),
    );
    await m.query(`UPDATE offer SET terms_from = $2 WHERE id = $1`, [offerId, row.effective_from]);
    return row;
  }
}
