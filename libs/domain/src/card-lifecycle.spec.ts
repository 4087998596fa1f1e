import {
  authorizationExpired,
  chainStep,
  clearingKeepsReward,
  lifecycleTable,
} from './card-lifecycle';

describe('card lifecycle, reward_on = clearing (default)', () => {
  it.each([
    ['none', 'authorization', 'authorized', 'record'],
    ['authorized', 'clearing', 'cleared', 'decide'],
    ['none', 'clearing', 'cleared', 'decide'],
    ['cleared', 'authorization', 'cleared', 'ignore'],
    ['cleared', 'clearing', 'cleared', 'ignore'],
    ['authorized', 'authorization_reversal', 'voided', 'ignore'],
    ['cleared', 'authorization_reversal', 'cleared', 'ignore'],
    ['authorized', 'expiry', 'expired', 'ignore'],
    ['voided', 'clearing', 'cleared', 'decide'],
    ['expired', 'clearing', 'cleared', 'decide'],
  ] as const)('%s + %s → %s (%s)', (state, event, next, action) => {
    expect(chainStep('clearing', state, event)).toEqual({ next, action });
  });
});

describe('card lifecycle, reward_on = authorization', () => {
  it.each([
    ['none', 'authorization', 'authorized', 'decide'],
    ['authorized', 'clearing', 'cleared', 'confirm'],
    ['none', 'clearing', 'cleared', 'decide'],
    ['authorized', 'authorization_reversal', 'voided', 'reverse'],
    ['authorized', 'expiry', 'expired', 'reverse'],
    ['cleared', 'authorization_reversal', 'cleared', 'ignore'],
    ['cleared', 'authorization', 'cleared', 'ignore'],
    ['voided', 'clearing', 'cleared', 'decide'],
  ] as const)('%s + %s → %s (%s)', (state, event, next, action) => {
    expect(chainStep('authorization', state, event)).toEqual({ next, action });
  });
});

describe('one reward per chain, whatever the order', () => {
  const decisions = (rewardOn: 'clearing' | 'authorization', events: string[]) => {
    let state = 'none' as Parameters<typeof chainStep>[1];
    let live = 0;
    let max = 0;
    for (const e of events) {
      const step = chainStep(rewardOn, state, e as Parameters<typeof chainStep>[2]);
      if (step.action === 'decide') live++;
      if (step.action === 'reverse') live = Math.max(0, live - 1);
      max = Math.max(max, live);
      state = step.next;
    }
    return { live, max };
  };
  const orders = [
    ['authorization', 'clearing'],
    ['clearing', 'authorization'],
    ['authorization', 'authorization_reversal', 'clearing'],
    ['authorization', 'clearing', 'authorization_reversal'],
    ['authorization', 'expiry', 'clearing'],
    ['authorization', 'clearing', 'clearing'],
  ];
  it.each(orders.flatMap((o) => [['clearing', o] as const, ['authorization', o] as const]))(
    'reward_on %s, %j: at most one live reward',
    (rewardOn, order) => {
      expect(decisions(rewardOn, [...order]).max).toBeLessThanOrEqual(1);
    },
  );
  it('every state has an outcome for every record', () => {
    expect(lifecycleTable('clearing')).toHaveLength(20);
    expect(lifecycleTable('authorization')).toHaveLength(20);
  });
});

describe('authorization expiry and the clearing check', () => {
  it('expires authorization_expiry_days after the swipe', () => {
    const at = new Date('2026-06-01T00:00:00Z');
    expect(authorizationExpired(at, 7, new Date('2026-06-07T23:59:59Z'))).toBe(false);
    expect(authorizationExpired(at, 7, new Date('2026-06-08T00:00:00Z'))).toBe(true);
  });
  it('the clearing keeps the reward only when it earns the same one', () => {
    expect(
      clearingKeepsReward({ offerId: 'a', cashback: 500 }, { offerId: 'a', cashback: 500 }),
    ).toBe(true);
    expect(
      clearingKeepsReward({ offerId: 'a', cashback: 500 }, { offerId: 'a', cashback: 400 }),
    ).toBe(false);
    expect(clearingKeepsReward({ offerId: 'a', cashback: 500 }, null)).toBe(false);
    expect(clearingKeepsReward(null, null)).toBe(true);
  });
});
