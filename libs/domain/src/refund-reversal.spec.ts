import type { MatchingEnrollment, OfferTerms } from './matching';
import { noDeltas } from './chunk-deltas';
import { giveBack, giveBackAll, linkRefund } from './refund-reversal';

const offer = (over: Partial<OfferTerms> = {}): OfferTerms => ({
  id: 'o1',
  merchantId: 'm1',
  status: 'active',
  currency: 'USD',
  minSpend: 2_000,
  rewardType: 'fixed',
  cashbackAmount: 500,
  cashbackPercent: null,
  merchantFeeAmount: 100,
  startsAt: new Date('2026-01-01T00:00:00Z'),
  expiresAt: new Date('2027-01-01T00:00:00Z'),
  budgetTotal: 10_000,
  budgetUsed: 600,
  maxRedemptionsPerCardholder: 1,
  priority: 0,
  ...over,
});
const enrollment = (over: Partial<MatchingEnrollment> = {}): MatchingEnrollment => ({
  id: 'e1',
  offerId: 'o1',
  status: 'redeemed',
  redemptionCount: 1,
  addedAt: new Date('2026-01-01T00:00:00Z'),
  ...over,
});

describe('linking a refund to its purchase', () => {
  it('no purchase: unmatched', () =>
    expect(linkRefund(false, false, undefined)).toBe('no_purchase'));
  it('purchase in the same chunk nets the refund itself', () =>
    expect(linkRefund(true, true, undefined)).toBe('netted_by_purchase'));
  it('purchase not yet matched nets it when matched', () =>
    expect(linkRefund(true, false, 'received')).toBe('netted_by_purchase'));
  it('purchase locked by another run: the refund waits', () =>
    expect(linkRefund(true, false, undefined)).toBe('deferred'));
  it('processed purchase: its redemption is reviewed', () =>
    expect(linkRefund(true, false, 'matched')).toBe('review'));
});

describe('what a reversal gives back', () => {
  it('the merchant-funded amount to the budget and one redemption to the enrollment, active again', () => {
    const g = giveBack(offer(), enrollment(), 600);
    expect(g.budgetDelta).toBe(-600);
    expect(g.offer.budgetUsed).toBe(0);
    expect(g.countDelta).toBe(-1);
    expect(g.enrollment).toMatchObject({ redemptionCount: 0, status: 'active' });
  });
  it('never takes the budget below zero', () => {
    const g = giveBack(offer({ budgetUsed: 100 }), enrollment(), 600);
    expect(g.budgetDelta).toBe(-100);
    expect(g.offer.budgetUsed).toBe(0);
  });
  it('a redeemed enrollment still at its limit stays redeemed; other statuses are kept', () => {
    expect(
      giveBack(offer({ maxRedemptionsPerCardholder: 1 }), enrollment({ redemptionCount: 2 }), 600)
        .enrollment.status,
    ).toBe('redeemed');
    expect(giveBack(offer(), enrollment({ status: 'removed' }), 600).enrollment.status).toBe(
      'removed',
    );
  });
});

describe('giving back every reversal of a chunk', () => {
  it('gives back in turn against the state left by the previous one, summing the deltas', () => {
    const offers = new Map([['o1', offer({ budgetUsed: 1_000, maxRedemptionsPerCardholder: 2 })]]);
    const enrollments = new Map([['e1', enrollment({ redemptionCount: 2 })]]);
    const deltas = noDeltas();
    giveBackAll(
      [
        { offerId: 'o1', enrollmentId: 'e1', merchantFunded: 600 },
        { offerId: 'o1', enrollmentId: 'e1', merchantFunded: 600 },
      ],
      offers,
      enrollments,
      deltas,
    );
    // The second reversal finds 400 left in the budget and one redemption on the enrollment.
    expect(deltas.budget).toEqual(new Map([['o1', -1_000]]));
    expect(deltas.enrollments).toEqual(new Map([['e1', { delta: -2, status: 'active' }]]));
    expect(offers.get('o1')!.budgetUsed).toBe(0);
    expect(enrollments.get('e1')).toMatchObject({ redemptionCount: 0, status: 'active' });
  });

  it('adds to deltas already in the chunk', () => {
    const deltas = noDeltas();
    deltas.budget.set('o1', 500);
    giveBackAll(
      [{ offerId: 'o1', enrollmentId: 'e1', merchantFunded: 600 }],
      new Map([['o1', offer()]]),
      new Map([['e1', enrollment()]]),
      deltas,
    );
    expect(deltas.budget.get('o1')).toBe(-100);
  });
});
