import { EntityManager } from 'typeorm';
import { reversalOfEntry } from '@app/domain';
import { MatchingRepository, ReversalRow } from './matching.repository';

/** A redemption a refund reverses, with the clawback its settlement entry's status calls for. */
export interface Reversal {
  row: ReversalRow;
  clawback: number | null;
}

/**
 * Locks the settlement entries of redemptions due for reversal (the financial record decides:
 * pending → reversed, settled → reversed + clawback) and keeps those that can still be reversed.
 * Shared by the refund path of single-purchase redemptions and of goal rounds. Report mode
 * (`lock` false) reads the entries without locking them.
 */
export async function lockReversals(
  m: EntityManager,
  repo: MatchingRepository,
  due: ReversalRow[],
  lock = true,
): Promise<Reversal[]> {
  if (!due.length) return [];
  const entries = await repo.lockSettlementEntries(
    m,
    due.map((r) => r.redemption_id),
    lock,
  );
  const entryOf = new Map(entries.map((e) => [e.redemption_id, e]));
  const out: Reversal[] = [];
  for (const row of due) {
    const e = entryOf.get(row.redemption_id);
    const r = e && reversalOfEntry(e.status, Number(e.institution_payout_amount));
    if (r) out.push({ row, clawback: r.clawbackAmount });
  }
  return out;
}
