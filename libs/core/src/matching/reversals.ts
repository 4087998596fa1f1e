import { EntityManager } from 'typeorm';
import { reversalOfEntry, ReversalCause } from '@app/domain';
import { MatchingRepository, ReversalRow } from './matching.repository';

/** A redemption due for reversal, with why (stored on it and sent in its event). */
export interface DueReversal<R extends ReversalRow = ReversalRow> {
  row: R;
  cause: ReversalCause;
}

/** A redemption being reversed, with its cause and the clawback its settlement entry's status calls for. */
export interface Reversal {
  row: ReversalRow;
  cause: ReversalCause;
  clawback: number | null;
}

/**
 * Locks the settlement entries of redemptions due for reversal (the financial record decides:
 * pending → reversed, settled → reversed + clawback) and keeps those that can still be reversed.
 * Shared by the refund path of single-purchase redemptions, of goal rounds and of the card
 * lifecycle. Report mode (`lock` false) reads the entries without locking them.
 */
export async function lockReversals(
  m: EntityManager,
  repo: MatchingRepository,
  due: readonly DueReversal[],
  lock = true,
): Promise<Reversal[]> {
  if (!due.length) return [];
  const entries = await repo.lockSettlementEntries(
    m,
    due.map((d) => d.row.redemption_id),
    lock,
  );
  const entryOf = new Map(entries.map((e) => [e.redemption_id, e]));
  const out: Reversal[] = [];
  for (const { row, cause } of due) {
    const e = entryOf.get(row.redemption_id);
    const r = e && reversalOfEntry(e.status, Number(e.institution_payout_amount));
    if (r) out.push({ row, cause, clawback: r.clawbackAmount });
  }
  return out;
}
