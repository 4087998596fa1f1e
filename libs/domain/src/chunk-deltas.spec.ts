import { addAllocation, addBudgetDelta, addEnrollmentDelta, noDeltas } from './chunk-deltas';

describe("a chunk's budget and enrollment deltas", () => {
  it('sums the budget per offer', () => {
    const d = noDeltas();
    addBudgetDelta(d, 'o1', -600);
    addBudgetDelta(d, 'o1', 500);
    addBudgetDelta(d, 'o2', 300);
    expect(d.budget).toEqual(
      new Map([
        ['o1', -100],
        ['o2', 300],
      ]),
    );
  });

  it('sums the count per enrollment and keeps the status set last', () => {
    const d = noDeltas();
    addEnrollmentDelta(d, 'e1', -1, 'active');
    addEnrollmentDelta(d, 'e1', 1, 'redeemed');
    expect(d.enrollments).toEqual(new Map([['e1', { delta: 0, status: 'redeemed' }]]));
  });

  it("adds an allocation's reservations after what reversals gave back", () => {
    const d = noDeltas();
    addBudgetDelta(d, 'o1', -600);
    addEnrollmentDelta(d, 'e1', -1, 'active');
    addAllocation(d, {
      budgetDeltas: new Map([['o1', 600]]),
      enrollmentUpdates: new Map([['e1', { delta: 1, status: 'redeemed' }]]),
    });
    expect(d.budget.get('o1')).toBe(0);
    expect(d.enrollments.get('e1')).toEqual({ delta: 0, status: 'redeemed' });
  });
});
