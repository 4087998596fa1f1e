import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/**
 * The facts simulate answers with beside the evaluation (which is the EvaluationPipeline's, in
 * report mode): each an indexed lookup, in simulate's READ ONLY transaction.
 */
@Injectable()
export class SimulationRepository {
  /** Whether the reference was ever stored (transaction_key: kept past retention). */
  async isStored(
    m: EntityManager,
    institutionId: string,
    transactionRef: string,
  ): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `SELECT 1 FROM transaction_key WHERE institution_id = $1 AND transaction_ref = $2`,
      [institutionId, transactionRef],
    );
    return rows.length > 0;
  }

  /**
   * The redemption of a purchase, whatever its status (redemption_transaction_unique); a goal
   * round's is not reported here: its refunds follow the goal's rule.
   */
  async redemptionOf(m: EntityManager, transactionId: string): Promise<string | null> {
    const rows: { id: string }[] = await m.query(
      `SELECT id FROM redemption WHERE transaction_id = $1 AND goal_round IS NULL`,
      [transactionId],
    );
    return rows[0]?.id ?? null;
  }
}
