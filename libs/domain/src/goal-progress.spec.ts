import {
  addToProgress,
  contributionOf,
  feedProgress,
  refundContribution,
  roundReversed,
} from './goal-progress';

const three = { type: 'purchase_count' as const, target: 3 };
const spend100 = { type: 'cumulative_spend' as const, target: 10_000 };

describe('goal offers: progress', () => {
  it('purchase_count: each qualifying purchase counts one; the third earns the reward and the round starts over', () => {
    let current = 0;
    const steps = [1, 2, 3].map(() => {
      const s = addToProgress(three, current, contributionOf(three, 2_500));
      current = s.current;
      return s;
    });
    expect(steps.map((s) => s.completes)).toEqual([false, false, true]);
    expect(steps[2]).toEqual({ current: 0, completes: true, roundTotal: 3 });
  });
  it('cumulative_spend: amounts add up; the purchase that reaches the target completes the round', () => {
    const a = addToProgress(spend100, 0, contributionOf(spend100, 6_000));
    expect(a).toEqual({ current: 6_000, completes: false, roundTotal: null });
    const b = addToProgress(spend100, a.current, contributionOf(spend100, 3_999));
    expect(b.completes).toBe(false);
    const c = addToProgress(spend100, b.current, contributionOf(spend100, 1));
    expect(c).toEqual({ current: 0, completes: true, roundTotal: 10_000 });
  });
  it('overshoot is not carried into the next round', () => {
    expect(addToProgress(spend100, 9_000, 5_000)).toEqual({
      current: 0,
      completes: true,
      roundTotal: 14_000,
    });
  });
  it('the feed shows current, target and unit', () => {
    expect(feedProgress(three, 2)).toEqual({ current: 2, target: 3, unit: 'purchases' });
    expect(feedProgress(spend100, 4_200)).toEqual({
      current: 4_200,
      target: 10_000,
      unit: 'amount',
    });
  });
});

describe('goal offers: refunds take the contribution back', () => {
  it('cumulative_spend: a partial refund takes back what was refunded', () => {
    expect(refundContribution(spend100, 6_000, 4_000, 0)).toEqual({
      newContribution: 4_000,
      taken: 2_000,
    });
  });
  it('a full refund, or a net below min_spend, takes the whole contribution', () => {
    expect(refundContribution(three, 1, 0, 0)).toEqual({ newContribution: 0, taken: 1 });
    expect(refundContribution(three, 1, 900, 1_000)).toEqual({ newContribution: 0, taken: 1 });
    expect(refundContribution(three, 1, 1_000, 1_000)).toEqual({ newContribution: 1, taken: 0 });
  });
  it('a rewarded round is reversed only when the refund takes it below target', () => {
    expect(roundReversed(spend100, 12_000, 2_000)).toBe(false);
    expect(roundReversed(spend100, 12_000, 2_001)).toBe(true);
    expect(roundReversed(three, 3, 1)).toBe(true);
  });
});
