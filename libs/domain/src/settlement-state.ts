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
