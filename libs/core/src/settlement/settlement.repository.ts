import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/** One settled entry, with its redemption's facts when the redemption moved too. */
export interface SettledRow {
  redemption_id: string;
  redemption_settled: boolean;
  institution_id: string | null;
  offer_id: string | null;
  cardholder_token: string | null;
  institution_payout_amount: string | null;
  currency: string | null;
  transaction_ref: string | null;
  purchase_amount: string | null;
  merchant_funded_amount: string | null;
  goal_round: number | null;
}

/** The settlement run's statements: settlement_run, and settlement_entry with its redemption. */
@Injectable()
export class SettlementRepository {
  constructor(private readonly db: DataSource) {}

  /** Records a run; returns its id. */
  async startRun(asOf: Date, trigger: string): Promise<string> {
    const [run]: { id: string }[] = await this.db.query(
      `INSERT INTO settlement_run (as_of, trigger) VALUES ($1, $2) RETURNING id`,
      [asOf, trigger],
    );
    return run.id;
  }

  /**
   * Settles up to `limit` pending entries whose hold has passed as of `asOf`, oldest first, and
   * their redemptions, in one statement: entries another run holds are skipped (SKIP LOCKED), and
   * both rows move only from `fromStatuses`. The hold is the program's settlement_hold_days
   * (`defaultHoldDays` without a program); a card chain's redemption counts it from the chain's
   * first clearing (also a redemption reissued on a later clearing; none before the chain cleared).
   * Uses the partial index on pending entries.
   */
  settleDue(
    p: {
      asOf: Date;
      runId: string;
      fromStatuses: readonly string[];
      limit: number;
      defaultHoldDays: number;
    },
    m: EntityManager,
  ): Promise<SettledRow[]> {
    return m.query(
      `WITH due AS (
         SELECT e.id
           FROM settlement_entry e
           LEFT JOIN program p ON p.institution_id = e.institution_id
           LEFT JOIN redemption rd ON rd.id = e.redemption_id
           LEFT JOIN card_chain c ON c.rewarded_transaction_id = rd.transaction_id
          WHERE e.status = 'pending'
            AND e.created_at <= $1::timestamptz
            AND CASE WHEN c.rewarded_transaction_id IS NULL THEN e.created_at ELSE c.cleared_at END
                <= $1::timestamptz - make_interval(days => COALESCE(p.settlement_hold_days, $5::int))
          ORDER BY e.created_at
          LIMIT $4
            FOR NO KEY UPDATE OF e SKIP LOCKED
       ), s AS (
         UPDATE settlement_entry e SET status = 'settled', settled_at = now(), settlement_run_id = $2
           FROM due WHERE e.id = due.id AND e.status = ANY($3::text[])
         RETURNING e.redemption_id
       ), r AS (
         UPDATE redemption r SET status = 'settled', settled_at = now()
           FROM s WHERE r.id = s.redemption_id AND r.status = ANY($3::text[])
         RETURNING r.id, r.institution_id, r.offer_id, r.cardholder_token, r.institution_payout_amount, r.currency,
                   r.transaction_ref, r.purchase_amount, r.merchant_funded_amount, r.goal_round
       )
       SELECT s.redemption_id, r.id IS NOT NULL AS redemption_settled, r.institution_id, r.offer_id,
              r.cardholder_token, r.institution_payout_amount, r.currency, r.transaction_ref,
              r.purchase_amount::text AS purchase_amount, r.merchant_funded_amount::text AS merchant_funded_amount,
              r.goal_round
         FROM s LEFT JOIN r ON r.id = s.redemption_id`,
      [p.asOf, p.runId, p.fromStatuses, p.limit, p.defaultHoldDays],
    );
  }

  /** The run's count of settled entries. */
  async finishRun(
    runId: string,
    settled: number,
    m: EntityManager = this.db.manager,
  ): Promise<void> {
    await m.query(`UPDATE settlement_run SET settled_count = $2 WHERE id = $1`, [runId, settled]);
  }
}
