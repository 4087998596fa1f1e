import { v5 as uuidv5 } from 'uuid';

/**
 * Institution statements: what each movement does to the figures, how periods chain, and the id
 * a period keeps from its first movement to its close. docs/statements.md states the same rules.
 */

export const MOVEMENT_TYPES = ['earned', 'reversed', 'settled', 'clawback'] as const;
export type MovementType = (typeof MOVEMENT_TYPES)[number];

export const STATEMENT_GRANULARITIES = ['day', 'month'] as const;
export type StatementGranularity = (typeof STATEMENT_GRANULARITIES)[number];

export const STATEMENT_STATUSES = ['open', 'closed'] as const;
export type StatementStatus = (typeof STATEMENT_STATUSES)[number];

/** Sums of a period's movements per type, in minor units, and their count. */
export interface MovementSums {
  earned: number;
  reversed: number;
  settled: number;
  clawback: number;
  count: number;
}

export const NO_MOVEMENTS: MovementSums = {
  earned: 0,
  reversed: 0,
  settled: 0,
  clawback: 0,
  count: 0,
};

/** A statement's figures, in minor units. */
export interface StatementFigures {
  pending_opening: number;
  earned: number;
  reversed: number;
  settled: number;
  pending_closing: number;
  clawed_back: number;
  net_payout: number;
  movement_count: number;
}

/**
 * The identities, by construction: what was pending, plus what was earned, less what was reversed
 * before settling and what settled, is what is still pending; what the institution is owed for
 * the period is what settled less what settled entries clawed back.
 */
export function statementFigures(pendingOpening: number, sums: MovementSums): StatementFigures {
  return {
    pending_opening: pendingOpening,
    earned: sums.earned,
    reversed: sums.reversed,
    settled: sums.settled,
    pending_closing: pendingOpening + sums.earned - sums.reversed - sums.settled,
    clawed_back: sums.clawback,
    net_payout: sums.settled - sums.clawback,
    movement_count: sums.count,
  };
}

export function addSums(a: MovementSums, b: MovementSums): MovementSums {
  return {
    earned: a.earned + b.earned,
    reversed: a.reversed + b.reversed,
    settled: a.settled + b.settled,
    clawback: a.clawback + b.clawback,
    count: a.count + b.count,
  };
}

/** What the pending balance moves by over a period. */
export function pendingChange(sums: MovementSums): number {
  return sums.earned - sums.reversed - sums.settled;
}

/** Adds one movement of `type` and `amount` to the sums. */
export function withMovement(sums: MovementSums, type: MovementType, amount: number): MovementSums {
  return { ...sums, [type]: sums[type] + amount, count: sums.count + 1 };
}

// Calendar days as `YYYY-MM-DD`, computed in UTC so that no local zone of the process matters.

export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

export function monthEnd(day: string): string {
  const d = new Date(`${monthStart(day)}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1, 0);
  return d.toISOString().slice(0, 10);
}

/** The first and last day (both inclusive) of the period of `granularity` holding `day`. */
export function periodOf(granularity: StatementGranularity, day: string): [string, string] {
  return granularity === 'day' ? [day, day] : [monthStart(day), monthEnd(day)];
}

/** The calendar day of an instant in a time zone. */
export function dayIn(at: Date, timeZone: string): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

/** A fixed namespace for statement ids (UUIDv5), so an open period's id is its closed id. */
const STATEMENT_NAMESPACE = '5f0c6a3e-8d1b-4f7a-9c2e-7b4d1a6e3f90';

export function statementId(
  institutionId: string,
  currency: string,
  granularity: StatementGranularity,
  periodStart: string,
): string {
  return uuidv5(
    `${institutionId.toLowerCase()}/${currency}/${granularity}/${periodStart}`,
    STATEMENT_NAMESPACE,
  );
}

/**
 * Consecutive periods from one opening balance: each period opens with the previous one's
 * pending_closing.
 */
export function chainPeriods(pendingOpening: number, periods: MovementSums[]): StatementFigures[] {
  let opening = pendingOpening;
  return periods.map((sums) => {
    const figures = statementFigures(opening, sums);
    opening = figures.pending_closing;
    return figures;
  });
}
