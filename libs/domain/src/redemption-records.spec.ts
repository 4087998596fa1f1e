import type { Allocation } from './matching';
import { completedFacts, newRedemption, storedFacts } from './redemption-records';

const allocation: Allocation = {
  transactionId: 't1',
  offerId: 'o1',
  enrollmentId: 'e1',
  reward: {
    currency: 'USD',
    purchaseAmount: 2_500,
    cashback: 500,
    merchantFunded: 600,
    serviceRevenue: 30,
    institutionPayout: 470,
  },
};
const purchase = {
  institution_id: 'i1',
  cardholder_token: 'ch-1',
  transaction_ref: 'pos-1',
  transacted_at: new Date('2026-11-20T10:00:00Z'),
};

describe('the redemption an allocation makes', () => {
  it("carries the purchase's institution and cardholder, the offer's merchant and the reward", () => {
    expect(newRedemption('r1', allocation, purchase, 'm1')).toEqual({
      id: 'r1',
      institutionId: 'i1',
      transactionId: 't1',
      transactionRef: 'pos-1',
      transactedAt: new Date('2026-11-20T10:00:00Z'),
      enrollmentId: 'e1',
      offerId: 'o1',
      merchantId: 'm1',
      cardholderToken: 'ch-1',
      currency: 'USD',
      purchase: 2_500,
      cashback: 500,
      merchantFunded: 600,
      serviceRevenue: 30,
      institutionPayout: 470,
      goalRound: null,
      goalTarget: null,
    });
  });

  it("a goal offer's redemption names the round it rewards", () => {
    expect(newRedemption('r1', { ...allocation, goalRound: 3 }, purchase, 'm1').goalRound).toBe(3);
  });
});

describe('what the redemption events say', () => {
  it('redemption.completed: the new redemption, its payout and what reconciles it', () => {
    expect(completedFacts(newRedemption('r1', allocation, purchase, 'm1'))).toEqual({
      redemptionId: 'r1',
      institutionId: 'i1',
      offerId: 'o1',
      cardholderToken: 'ch-1',
      institutionPayoutMinor: 470,
      currency: 'USD',
      transactionRef: 'pos-1',
      purchaseMinor: 2_500,
      merchantFundedMinor: 600,
      goalRound: null,
    });
  });

  it('redemption.reversed and settled: the stored redemption as read, its stored columns only', () => {
    expect(
      storedFacts({
        redemption_id: 'r1',
        institution_id: 'i1',
        offer_id: 'o1',
        cardholder_token: 'ch-1',
        currency: 'USD',
        institution_payout_amount: '470',
        transaction_ref: 'pos-1',
        purchase_amount: '2500',
        merchant_funded_amount: '600',
        goal_round: 2,
      }),
    ).toEqual({
      redemptionId: 'r1',
      institutionId: 'i1',
      offerId: 'o1',
      cardholderToken: 'ch-1',
      institutionPayoutMinor: '470',
      currency: 'USD',
      transactionRef: 'pos-1',
      purchaseMinor: '2500',
      merchantFundedMinor: '600',
      goalRound: 2,
    });
  });
});
