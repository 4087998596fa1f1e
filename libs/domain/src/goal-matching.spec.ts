import { allocate, evaluateCandidate, MatchingEnrollment, OfferTerms } from './matching';

// Goal offers in matching: which purchases count, which one earns the reward, and how a goal
// competes with the cardholder's other offers for a purchase's one redemption.

const AT = new Date('2026-11-15T12:00:00Z');

function offer(overrides: Partial<OfferTerms> = {}): OfferTerms {
  return {
    id: 'goal',
    merchantId: 'm1',
    status: 'active',
    currency: 'USD',
    minSpend: 1_000,
    rewardType: 'fixed',
    cashbackAmount: 500,
    cashbackPercent: null,
    merchantFeeAmount: 0,
    startsAt: new Date('2026-11-01T00:00:00Z'),
    expiresAt: new Date('2026-12-01T00:00:00Z'),
    budgetTotal: null,
    budgetUsed: 0,
    maxRedemptionsPerCardholder: 1,
    priority: 0,
    goal: { type: 'purchase_count', target: 3 },
    ...overrides,
  };
}

const enrollment = (o: Partial<MatchingEnrollment> = {}): MatchingEnrollment => ({
  id: 'e-goal',
  offerId: 'goal',
  status: 'active',
  redemptionCount: 0,
  addedAt: new Date('2026-11-10T00:00:00Z'),
  ...o,
});

const buy = (id: string, amount: string, enrollmentIds = ['e-goal'], at = AT) => ({
  transactionId: id,
  facts: { merchantId: 'm1', amount, currency: null, transactedAt: at },
  serviceShareRate: '0.5',
  enrollmentIds,
});

describe('goal offers in matching', () => {
  it('purchase_count 3: the third qualifying purchase earns the one reward; the first two only count', () => {
    const r = allocate(
      [buy('t1', '20'), buy('t2', '20'), buy('t3', '20')],
      new Map([['goal', offer()]]),
      new Map([['e-goal', enrollment()]]),
    );
    expect(r.contributions.map((c) => [c.transactionId, c.round, c.units])).toEqual([
      ['t1', 1, 1],
      ['t2', 1, 1],
      ['t3', 1, 1],
    ]);
    expect(r.redemptions).toEqual([
      expect.objectContaining({ transactionId: 't3', goalRound: 1, enrollmentId: 'e-goal' }),
    ]);
    expect(r.redemptions[0].reward.purchaseAmount).toBe(6_000);
    expect(r.enrollmentUpdates.get('e-goal')).toEqual({ delta: 1, status: 'redeemed' });
    expect(r.goalStates.get('e-goal')).toEqual({ round: 2, progress: 0, spend: 0 });
  });

  it('a purchase below min_spend (or breaking any other rule) does not count', () => {
    const r = allocate(
      [buy('t1', '5'), buy('t2', '20', ['e-goal'], new Date('2026-11-09T00:00:00Z'))],
      new Map([['goal', offer()]]),
      new Map([['e-goal', enrollment()]]),
    );
    expect(r.contributions).toEqual([]);
    expect(r.goalStates.size).toBe(0);
  });

  it('the round starts over while max_redemptions_per_cardholder allows another', () => {
    const r = allocate(
      ['t1', 't2', 't3', 't4', 't5', 't6', 't7'].map((t) => buy(t, '20')),
      new Map([['goal', offer({ maxRedemptionsPerCardholder: 2 })]]),
      new Map([['e-goal', enrollment()]]),
    );
    expect(r.redemptions.map((x) => [x.transactionId, x.goalRound])).toEqual([
      ['t3', 1],
      ['t6', 2],
    ]);
    expect(r.contributions).toHaveLength(6); // t7: the enrollment is redeemed
    expect(r.enrollmentUpdates.get('e-goal')).toEqual({ delta: 2, status: 'redeemed' });
  });

  it('cumulative_spend with a percent reward: percent of the round’s counted spend, capped', () => {
    const spend = offer({
      goal: { type: 'cumulative_spend', target: 10_000 },
      minSpend: 0,
      rewardType: 'percent',
      cashbackPercent: '10',
      cashbackAmount: 1_200,
    });
    const r = allocate(
      [buy('t1', '60'), buy('t2', '45')],
      new Map([['goal', spend]]),
      new Map([['e-goal', enrollment()]]),
    );
    expect(r.redemptions).toHaveLength(1);
    expect(r.redemptions[0].reward).toMatchObject({ purchaseAmount: 10_500, cashback: 1_050 });
    const capped = allocate(
      [buy('t1', '200')],
      new Map([['goal', spend]]),
      new Map([['e-goal', enrollment()]]),
    );
    expect(capped.redemptions[0].reward.cashback).toBe(1_200);
  });

  it('a purchase another offer wins still counts toward the goal', () => {
    const offers = new Map([
      ['goal', offer()],
      ['plain', offer({ id: 'plain', goal: undefined, cashbackAmount: 200 })],
    ]);
    const r = allocate(
      [buy('t1', '20', ['e-goal', 'e-plain'])],
      offers,
      new Map([
        ['e-goal', enrollment()],
        ['e-plain', enrollment({ id: 'e-plain', offerId: 'plain' })],
      ]),
    );
    expect(r.redemptions.map((x) => x.offerId)).toEqual(['plain']);
    expect(r.goalStates.get('e-goal')).toEqual({ round: 1, progress: 1, spend: 2_000 });
  });

  it('a completing goal competes by the winner rule; when it loses, its round waits at the target for the next counted purchase', () => {
    const offers = new Map([
      ['goal', offer({ cashbackAmount: 300 })],
      ['plain', offer({ id: 'plain', goal: undefined, cashbackAmount: 900 })],
    ]);
    const enrollments = new Map([
      ['e-goal', enrollment({ goal: { round: 1, progress: 2, spend: 4_000 } })],
      ['e-plain', enrollment({ id: 'e-plain', offerId: 'plain' })],
    ]);
    const r = allocate(
      [buy('t1', '20', ['e-goal', 'e-plain']), buy('t2', '20', ['e-goal', 'e-plain'])],
      offers,
      enrollments,
    );
    expect(r.redemptions.map((x) => [x.transactionId, x.offerId])).toEqual([
      ['t1', 'plain'],
      ['t2', 'goal'],
    ]);
    expect(r.redemptions[1].reward.purchaseAmount).toBe(8_000);
  });

  it('explains a goal purchase that does not complete the round: goal_not_reached, with what it counts', () => {
    const e = evaluateCandidate(
      { merchantId: 'm1', amount: '20', currency: null, transactedAt: AT },
      offer(),
      enrollment({ goal: { round: 1, progress: 1, spend: 2_000 } }),
      '0.5',
    );
    expect(e.qualifies).toBe(false);
    expect(e.reasons).toEqual(['goal_not_reached']);
    expect(e.goal).toMatchObject({ units: 1, progress: 2, reached: false });
  });

  it('a card authorization decided at the swipe neither counts nor completes a goal: its clearing counts the chain once', () => {
    const e = evaluateCandidate(
      {
        merchantId: 'm1',
        amount: '20',
        currency: null,
        transactedAt: AT,
        countsTowardGoals: false,
      },
      offer(),
      enrollment({ goal: { round: 1, progress: 2, spend: 4_000 } }),
      '0.5',
    );
    expect([e.qualifies, e.reasons, e.goal]).toEqual([
      false,
      ['goal_counts_at_clearing'],
      undefined,
    ]);
  });

  it('a goal whose budget cannot pay still counts, and is budget_exhausted when it reaches the target', () => {
    const e = evaluateCandidate(
      { merchantId: 'm1', amount: '20', currency: null, transactedAt: AT },
      offer({ budgetTotal: 400 }),
      enrollment({ goal: { round: 1, progress: 2, spend: 4_000 } }),
      '0.5',
    );
    expect(e.reasons).toEqual(['budget_exhausted']);
    expect(e.goal?.reached).toBe(true);
  });

  it('a further clearing of a chain (its total judged): cumulative_spend counts what it adds, purchase_count nothing more', () => {
    const clearing = {
      merchantId: 'm1',
      amount: '100',
      currency: null,
      transactedAt: AT,
      addedToChain: '60',
    };
    const spend = evaluateCandidate(
      clearing,
      offer({ goal: { type: 'cumulative_spend', target: 10_000 } }),
      enrollment({ goal: { round: 1, progress: 4_000, spend: 4_000 } }),
      '0.5',
    );
    expect(spend.goal).toMatchObject({ units: 6_000, spend: 6_000, progress: 10_000 });
    expect([spend.qualifies, spend.reward.purchaseAmount]).toEqual([true, 10_000]);
    const count = evaluateCandidate(
      clearing,
      offer(),
      enrollment({ goal: { round: 1, progress: 1, spend: 4_000 } }),
      '0.5',
    );
    expect([count.qualifies, count.reasons, count.goal]).toEqual([
      false,
      ['goal_not_reached'],
      undefined,
    ]);
  });

  it('a purchase that may not earn (its chain holds a goal reward) still counts, and earns nothing', () => {
    const r = allocate(
      [{ ...buy('t1', '20'), facts: { ...buy('t1', '20').facts, rewardable: false } }],
      new Map([['goal', offer()]]),
      new Map([['e-goal', enrollment({ goal: { round: 1, progress: 2, spend: 4_000 } })]]),
    );
    expect(r.redemptions).toEqual([]);
    expect(r.contributions.map((c) => [c.transactionId, c.units])).toEqual([['t1', 1]]);
    expect(r.goalStates.get('e-goal')).toEqual({ round: 1, progress: 3, spend: 6_000 });
  });
});
