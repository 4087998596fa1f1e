import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PROGRAM_DEFAULTS, sourcesOf } from '@app/domain';
import { WebhookEvents } from '../webhooks/webhook-events';

export interface SettlementRunResult {
  runId: string;
  settled: number;
}

interface SettledRow {
  redemption_id: string;
  redemption_settled: boolean;
  institution_id: string | null;
  offer_id: string | null;
  cardholder_token: string | null;
  institution_payout_amount: string | null;
  currency: string | null;
}

/** Entries settled per statement: bounded transactions and lock sets, however large the backlog. */
const BATCH = 5_000;

/**
 * Settles pending entries whose hold has passed: entry created_at + the program's
 * settlement_hold_days ≤ as_of; a card chain's redemption (docs/transactions.md) only once its
 * chain cleared, the hold counting from the clearing. The transition is guarded by the state machine (only from the
 * statuses that may become `settled`), the settlement entry and its redemption move together, and
 * entries another run holds are skipped, so concurrent or repeated runs never settle twice. Uses
 * the partial index on pending entries.
 */
@Injectable()
export class SettlementService {
  private readonly logger = new Logger('Settlement');

  constructor(
    private readonly db: DataSource,
    private readonly webhooks: WebhookEvents,
  ) {}

  async run(asOf: Date, trigger: 'schedule' | 'operator'): Promise<SettlementRunResult> {
    const [run]: { id: string }[] = await this.db.query(
      `INSERT INTO settlement_run (as_of, trigger) VALUES ($1, $2) RETURNING id`,
      [asOf, trigger],
    );
    let settled = 0;
    for (;;) {
      // The batch and its redemption.settled deliveries commit together.
      const n = await this.db.transaction(async (m) => {
        const rows: SettledRow[] = await m.query(
          `WITH due AS (
             SELECT e.id
               FROM settlement_entry e
               LEFT JOIN program p ON p.institution_id = e.institution_id
               LEFT JOIN redemption rd ON rd.id = e.redemption_id
               LEFT JOIN card_chain c ON c.rewarded_transaction_id = rd.transaction_id
              WHERE e.status = 'pending'
                AND e.created_at <= $1::timestamptz
                AND e.created_at <= $1::timestamptz - make_interval(days => COALESCE(p.settlement_hold_days, $5::int))
                AND (c.rewarded_transaction_id IS NULL
                     OR c.cleared_at <= $1::timestamptz - make_interval(days => COALESCE(p.settlement_hold_days, $5::int)))
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
             RETURNING r.id, r.institution_id, r.offer_id, r.cardholder_token, r.institution_payout_amount, r.currency
           )
           SELECT s.redemption_id, r.id IS NOT NULL AS redemption_settled, r.institution_id, r.offer_id,
                  r.cardholder_token, r.institution_payout_amount, r.currency
             FROM s LEFT JOIN r ON r.id = s.redemption_id`,
          [asOf, run.id, sourcesOf('settled'), BATCH, PROGRAM_DEFAULTS.settlementHoldDays],
        );
        const settledNow = rows.filter((r) => r.redemption_settled);
        await this.webhooks.redemptionsSettled(
          m,
          settledNow.map((r) => ({
            redemptionId: r.redemption_id,
            institutionId: r.institution_id!,
            offerId: r.offer_id!,
            cardholderToken: r.cardholder_token!,
            institutionPayoutMinor: r.institution_payout_amount!,
            currency: r.currency!,
          })),
          new Date(),
        );
        return rows.length;
      });
      settled += n;
      if (n < BATCH) break;
    }
    await this.db.query(`UPDATE settlement_run SET settled_count = $2 WHERE id = $1`, [
      run.id,
      settled,
    ]);
    this.logger.log(
      { runId: run.id, trigger, asOf: asOf.toISOString(), settled },
      'settlement run finished',
    );
    return { runId: run.id, settled };
  }
}
