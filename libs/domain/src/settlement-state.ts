/** Settlement / redemption status and the only transitions allowed between them. */
export const SETTLEMENT_STATUSES = ['pending', 'settled', 'reversed'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

const ALLOWED: Record<SettlementStatus, readonly SettlementStatus[]> = {
  pending: ['settled', 'reversed'],
  settled: ['reversed'],
  reversed: [],
};

export function canTransition(from: SettlementStatus, to: SettlementStatus): boolean {
  return ALLOWED[from].includes(to);
}

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: SettlementStatus,
    readonly to: SettlementStatus,
  ) {
    super(`settlement status cannot go from ${from} to ${to}`);
  }
}

export function transition(from: SettlementStatus, to: SettlementStatus): SettlementStatus {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
  return to;
}

/** Statuses from which a status may move to `to`: used to guard set-based UPDATEs in SQL. */
export function sourcesOf(to: SettlementStatus): SettlementStatus[] {
  return SETTLEMENT_STATUSES.filter((s) => ALLOWED[s].includes(to));
}

/**
 * Reversing a settlement entry (a refund took the purchase below min_spend): allowed from pending
 * (nothing was paid out: no clawback) and from settled (the institution's payout is clawed back).
 * Throws IllegalTransitionError from any other status.
 */
export function reversal(
  from: SettlementStatus,
  institutionPayout: number,
): { status: 'reversed'; clawbackAmount: number | null } {
  transition(from, 'reversed');
  return { status: 'reversed', clawbackAmount: from === 'settled' ? institutionPayout : null };
}

export function isSettlementStatus(value: string): value is SettlementStatus {
  return (SETTLEMENT_STATUSES as readonly string[]).includes(value);
}

/**
 * Reversing a settlement entry as it stands when locked: its clawback (reversal above), or null
 * when the entry can no longer be reversed (already reversed, or a status this code does not know),
 * and the redemption is then left as it is.
 */
export function reversalOfEntry(
  status: string,
  institutionPayout: number,
): { clawbackAmount: number | null } | null {
  if (!isSettlementStatus(status) || !sourcesOf('reversed').includes(status)) return null;
  return { clawbackAmount: reversal(status, institutionPayout).clawbackAmount };
}
