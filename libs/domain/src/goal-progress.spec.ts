import {
  addToProgress,
  afterCount,
  contributionOf,
  CountedPurchase,
  countPurchase,
  feedProgress,
  planGoalRefunds,
  refundContribution,
  roundKey,
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

describe('goal offers: a counted purchase and the open round', () => {
  it('counts the purchase in the open round; reaching the target makes it a candidate for the reward', () => {
    expect(countPurchase(three, { round: 2, progress: 2, spend: 5_000 }, 2_500)).toEqual({
      round: 2,
      units: 1,
      spend: 2_500,
      progress: 3,
      roundSpend: 7_500,
      reached: true,
    });
  });
  it('a rewarded round starts the next round from zero', () => {
    const c = countPurchase(three, { round: 1, progress: 2, spend: 5_000 }, 2_500);
    expect(afterCount(c, true)).toEqual({ round: 2, progress: 0, spend: 0 });
  });
  it('a round that reached its target without the reward stays open at it; the next counted purchase completes it', () => {
    const c = countPurchase(three, { round: 1, progress: 2, spend: 5_000 }, 2_500);
    const open = afterCount(c, false);
    expect(open).toEqual({ round: 1, progress: 3, spend: 7_500 });
    expect(countPurchase(three, open, 100).reached).toBe(true);
  });
});

describe('goal offers: refunds of counted purchases (planGoalRefunds)', () => {
  const counted = (o: Partial<CountedPurchase>): CountedPurchase => ({
    transactionId: 't1',
    enrollmentId: 'e1',
    goal: three,
    round: 1,
    units: 1,
    spend: 2_500,
    netMinor: 0,
    minSpend: 1_000,
    ...o,
  });
  it('in the open round, the progress falls by what the refund takes back', () => {
    const plan = planGoalRefunds(
      [counted({})],
      new Map([['e1', { round: 1, progress: 2, spend: 5_000 }]]),
      new Map(),
      new Map(),
    );
    expect(plan.contributions).toEqual([
      { transactionId: 't1', enrollmentId: 'e1', units: 0, spend: 0 },
    ]);
    expect(plan.states.get('e1')).toEqual({ round: 1, progress: 1, spend: 2_500 });
    expect(plan.reversed).toEqual([]);
  });
  it('a partial refund that leaves the purchase above min_spend keeps the count and lowers the spend', () => {
    const plan = planGoalRefunds(
      [counted({ netMinor: 1_500 })],
      new Map([['e1', { round: 1, progress: 2, spend: 5_000 }]]),
      new Map(),
      new Map(),
    );
    expect(plan.states.get('e1')).toEqual({ round: 1, progress: 2, spend: 4_000 });
  });
  it('a rewarded round that falls below its target is reversed; what is left of it counts in the open round', () => {
    const plan = planGoalRefunds(
      [counted({ round: 1 })],
      new Map([['e1', { round: 2, progress: 1, spend: 3_000 }]]),
      new Map([[roundKey({ enrollmentId: 'e1', round: 1 }), { units: 3, spend: 7_500 }]]),
      new Map([[roundKey({ enrollmentId: 'e1', round: 1 }), 3]]),
    );
    expect(plan.reversed).toEqual([{ enrollmentId: 'e1', round: 1 }]);
    expect(plan.carried).toEqual([{ enrollmentId: 'e1', round: 1, to: 2 }]);
    expect(plan.states.get('e1')).toEqual({ round: 2, progress: 3, spend: 8_000 });
  });
  it('a rewarded round that stays at its target is not reversed', () => {
    const plan = planGoalRefunds(
      [counted({ goal: spend100, units: 6_000, spend: 6_000, netMinor: 5_000, minSpend: 0 })],
      new Map([['e1', { round: 2, progress: 0, spend: 0 }]]),
      new Map([[roundKey({ enrollmentId: 'e1', round: 1 }), { units: 12_000, spend: 12_000 }]]),
      new Map([[roundKey({ enrollmentId: 'e1', round: 1 }), 10_000]]),
    );
    expect(plan.reversed).toEqual([]);
    expect(plan.states.size).toBe(0);
    expect(plan.contributions).toEqual([
      { transactionId: 't1', enrollmentId: 'e1', units: 5_000, spend: 5_000 },
    ]);
  });
  it('a rewarded round is judged against the target it was rewarded under, not the offer target now', () => {
    const k = roundKey({ enrollmentId: 'e1', round: 1 });
    // Rewarded at $120 under a $100 target; the offer now asks $200: a $10 refund leaves $110.
    const raised = planGoalRefunds(
      [
        counted({
          goal: { ...spend100, target: 20_000 },
          units: 6_000,
          spend: 6_000,
          netMinor: 5_000,
          minSpend: 0,
        }),
      ],
      new Map([['e1', { round: 2, progress: 0, spend: 0 }]]),
      new Map([[k, { units: 12_000, spend: 12_000 }]]),
      new Map([[k, 10_000]]),
    );
    expect(raised.reversed).toEqual([]);
    // Rewarded at $220 under a $200 target; the offer now asks $100: a $50 refund leaves $170.
    const lowered = planGoalRefunds(
      [counted({ goal: spend100, units: 6_000, spend: 6_000, netMinor: 1_000, minSpend: 0 })],
      new Map([['e1', { round: 2, progress: 0, spend: 0 }]]),
      new Map([[k, { units: 22_000, spend: 22_000 }]]),
      new Map([[k, 20_000]]),
    );
    expect(lowered.reversed).toEqual([{ enrollmentId: 'e1', round: 1 }]);
  });
  it('a second refund of the same reversed round lowers the open round it was carried into', () => {
    const k = roundKey({ enrollmentId: 'e1', round: 1 });
    const plan = planGoalRefunds(
      [counted({ transactionId: 't1' }), counted({ transactionId: 't2' })],
      new Map([['e1', { round: 2, progress: 0, spend: 0 }]]),
      new Map([[k, { units: 3, spend: 7_500 }]]),
      new Map([[k, 3]]),
    );
    expect(plan.reversed).toHaveLength(1);
    expect(plan.states.get('e1')).toEqual({ round: 2, progress: 1, spend: 2_500 });
  });
  it('a refund that takes nothing back changes nothing', () => {
    const plan = planGoalRefunds(
      [counted({ netMinor: 2_500 })],
      new Map([['e1', { round: 1, progress: 1, spend: 2_500 }]]),
      new Map(),
      new Map(),
    );
    expect(plan).toEqual({ contributions: [], states: new Map(), reversed: [], carried: [] });
  });
});
