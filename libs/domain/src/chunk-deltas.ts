import type { AllocationResult } from './matching';

/**
 * What a matching chunk changes in the offers' budget and the enrollments' counts, summed over its
 * reversals and its allocation, written with one statement each (budget last, just before commit).
 */
export interface ChunkDeltas {
  /** Change to budget_used per offer (minor units, merchant funded). */
  budget: Map<string, number>;
  /** Change to redemption_count per enrollment, with the status it ends in (the last one set). */
  enrollments: Map<string, { delta: number; status: string }>;
}

export const noDeltas = (): ChunkDeltas => ({ budget: new Map(), enrollments: new Map() });

export function addBudgetDelta(d: ChunkDeltas, offerId: string, delta: number): void {
  d.budget.set(offerId, (d.budget.get(offerId) ?? 0) + delta);
}

export function addEnrollmentDelta(
  d: ChunkDeltas,
  enrollmentId: string,
  delta: number,
  status: string,
): void {
  d.enrollments.set(enrollmentId, {
    delta: (d.enrollments.get(enrollmentId)?.delta ?? 0) + delta,
    status,
  });
}

/** Adds what an allocation reserves (after the reversals given back before it). */
export function addAllocation(
  d: ChunkDeltas,
  a: Pick<AllocationResult, 'budgetDeltas' | 'enrollmentUpdates'>,
): void {
  for (const [offerId, delta] of a.budgetDeltas) addBudgetDelta(d, offerId, delta);
  for (const [id, u] of a.enrollmentUpdates) addEnrollmentDelta(d, id, u.delta, u.status);
}
