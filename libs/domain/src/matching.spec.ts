import { DAY_MS as DAY } from './timestamp';
import {
  allocate,
  applyPercent,
  computeReward,
  evaluateOffer,
  explain,
  MatchingEnrollment,
  OfferTerms,
  PurchaseFacts,
  selectBest,
} from './matching';

const T0 = new Date('2026-11-01T00:00:00Z');
const T1 = new Date('2026-12-01T00:00:00Z');
const AT = new Date('2026-11-15T12:00:00Z');

function offer(overrides: Partial<OfferTerms> = {}): OfferTerms {
  return {
    id: 'offer-a',
    merchantId: 'm1',
    status: 'active',
    currency: 'USD',
    minSpend: 2000,
    rewardType: 'fixed',
    cashbackAmount: 500,
    cashbackPercent: null,
    merchantFeeAmount: 0,
    startsAt: T0,
    expiresAt: T1,
    budgetTotal: null,
    budgetUsed: 0,
    maxRedemptionsPerCardholder: 1,
    priority: 0,
    ...overrides,
  };
}

function enrollment(overrides: Partial<MatchingEnrollment> = {}): MatchingEnrollment {
  return {
    id: 'enr-a',
    offerId: 'offer-a',
    status: 'active',
    redemptionCount: 0,
    addedAt: new Date('2026-11-10T00:00:00Z'),
    ...overrides,
  };
}

function purchase(overrides: Partial<PurchaseFacts> = {}): PurchaseFacts {
  return { merchantId: 'm1', amount: '25', currency: null, transactedAt: AT, ...overrides };
}

describe('applyPercent', () => {
  it('multiplies exactly and rounds half-up at the minor unit', () => {
    expect(applyPercent(10_000, '5')).toBe(500);
    expect(applyPercent(1_234, '2.5')).toBe(31); // 30.85 → 31
    expect(applyPercent(1_230, '2.5')).toBe(31); // 30.75 → 31
    expect(applyPercent(1_220, '2.5')).toBe(31); // 30.5 → 31 (half-up)
    expect(applyPercent(1_218, '2.5')).toBe(30); // 30.45 → 30
    expect(applyPercent(999, '0.0001')).toBe(0);
    expect(applyPercent(5_000, '100.0000')).toBe(5_000);
  });

  it('refuses a value that is not a decimal', () => {
    expect(() => applyPercent(100, '5%')).toThrow(RangeError);
  });
});

describe('computeReward', () => {
  it('fixed: pays cashback_amount whatever the purchase', () => {
    expect(computeReward(offer(), 100_000, '0.5')).toEqual({
      currency: 'USD',
      purchaseAmount: 100_000,
      cashback: 500,
      merchantFunded: 500,
      serviceRevenue: 0,
      institutionPayout: 500,
    });
  });

  it('percent: pays the percentage of the purchase, capped at cashback_amount', () => {
    const o = offer({ rewardType: 'percent', cashbackPercent: '10', cashbackAmount: 1_000 });
    expect(computeReward(o, 4_567, '0.5').cashback).toBe(457); // 456.7 → 457
    expect(computeReward(o, 10_000, '0.5').cashback).toBe(1_000); // exactly at the cap
    expect(computeReward(o, 50_000, '0.5').cashback).toBe(1_000); // capped
  });

  it('fee split: merchant_funded = cashback + fee; service = round(fee × rate); payout = the rest', () => {
    const r = computeReward(offer({ merchantFeeAmount: 125 }), 3_000, '0.5');
    expect(r).toMatchObject({
      cashback: 500,
      merchantFunded: 625,
      serviceRevenue: 63,
      institutionPayout: 562,
    });
    expect(r.serviceRevenue + r.institutionPayout).toBe(r.merchantFunded);
  });

  it('the split is exact for every fee and rate (no cent lost or created)', () => {
    for (const rate of ['0', '0.3333', '0.5', '0.125', '0.9999', '1']) {
      for (let fee = 0; fee <= 1_001; fee += 7) {
        const r = computeReward(offer({ merchantFeeAmount: fee }), 5_000, rate);
        expect(r.serviceRevenue + r.institutionPayout).toBe(r.merchantFunded);
        expect(r.serviceRevenue).toBeGreaterThanOrEqual(0);
        expect(r.serviceRevenue).toBeLessThanOrEqual(fee);
      }
    }
  });

  it('a rate of 1 gives the service the whole fee; 0 gives it nothing', () => {
    expect(computeReward(offer({ merchantFeeAmount: 300 }), 5_000, '1')).toMatchObject({
      serviceRevenue: 300,
      institutionPayout: 500,
    });
    expect(computeReward(offer({ merchantFeeAmount: 300 }), 5_000, '0')).toMatchObject({
      serviceRevenue: 0,
      institutionPayout: 800,
    });
  });

  it('a purchase reduced below zero by refunds earns no percent reward', () => {
    expect(
      computeReward(offer({ rewardType: 'percent', cashbackPercent: '5' }), -300, '0.5').cashback,
    ).toBe(0);
  });
});

describe('evaluateOffer: every reason code', () => {
  const evalWith = (
    p: Partial<PurchaseFacts>,
    o: Partial<OfferTerms> = {},
    e: Partial<MatchingEnrollment> | null = {},
  ) => evaluateOffer(purchase(p), offer(o), e === null ? null : enrollment(e), '0.5');

  it('a purchase meeting every term qualifies with no reasons', () => {
    const r = evalWith({});
    expect(r).toMatchObject({
      offerId: 'offer-a',
      enrollmentId: 'enr-a',
      qualifies: true,
      reasons: [],
    });
    expect(r.reward.institutionPayout).toBe(500);
  });

  it('not_enrolled when there is no enrollment', () => {
    expect(evalWith({}, {}, null)).toMatchObject({
      qualifies: false,
      reasons: ['not_enrolled'],
      enrollmentId: null,
    });
  });

  it.each(['redeemed', 'expired'])('enrollment_inactive when the enrollment is %s', (status) => {
    expect(evalWith({}, {}, { status }).reasons).toContain('enrollment_inactive');
  });

  it('enrolled_after_purchase: added after transacted_at; added at the same instant is fine', () => {
    expect(evalWith({}, {}, { addedAt: new Date(AT.getTime() + 1) }).reasons).toEqual([
      'enrolled_after_purchase',
    ]);
    expect(evalWith({}, {}, { addedAt: AT }).qualifies).toBe(true);
  });

  it('merchant_mismatch for another or an unresolved merchant', () => {
    expect(evalWith({ merchantId: 'm2' }).reasons).toEqual(['merchant_mismatch']);
    expect(evalWith({ merchantId: null }).reasons).toEqual(['merchant_mismatch']);
  });

  it.each(['draft', 'paused'])('offer_inactive when the offer is %s', (status) => {
    expect(evalWith({}, { status }).reasons).toEqual(['offer_inactive']);
  });

  it('an ended offer still honours a purchase made inside its window (late arrival)', () => {
    expect(evalWith({}, { status: 'ended' }).qualifies).toBe(true);
  });

  it('outside_offer_window: starts_at inclusive, expires_at exclusive', () => {
    expect(
      evalWith(
        { transactedAt: new Date(T0.getTime() - 1) },
        {},
        { addedAt: new Date(T0.getTime() - 10) },
      ).reasons,
    ).toEqual(['outside_offer_window']);
    expect(evalWith({ transactedAt: T0 }, {}, { addedAt: T0 }).qualifies).toBe(true);
    expect(evalWith({ transactedAt: T1 }).reasons).toEqual(['outside_offer_window']);
    expect(evalWith({ transactedAt: new Date(T1.getTime() - 1) }).qualifies).toBe(true);
  });

  it('currency_mismatch only when a currency is sent and differs', () => {
    expect(evalWith({ currency: 'EUR' }).reasons).toEqual(['currency_mismatch']);
    expect(evalWith({ currency: 'USD' }).qualifies).toBe(true);
    expect(evalWith({ currency: null }).qualifies).toBe(true);
  });

  it('below_min_spend compares in the offer minor units, half-up', () => {
    expect(evalWith({ amount: '19.99' }).reasons).toEqual(['below_min_spend']);
    expect(evalWith({ amount: '20' }).qualifies).toBe(true);
    expect(evalWith({ amount: '19.995' }).qualifies).toBe(true); // rounds to 20.00
    expect(evalWith({ amount: '19.9949' }).reasons).toEqual(['below_min_spend']);
    // JPY has no minor unit: 1999.5 rounds to 2000.
    expect(evalWith({ amount: '1999.5' }, { currency: 'JPY', minSpend: 2000 }).qualifies).toBe(
      true,
    );
  });

  it('redemption_limit_reached when the count is at the maximum', () => {
    expect(evalWith({}, { maxRedemptionsPerCardholder: 2 }, { redemptionCount: 1 }).qualifies).toBe(
      true,
    );
    expect(
      evalWith({}, { maxRedemptionsPerCardholder: 2 }, { redemptionCount: 2 }).reasons,
    ).toEqual(['redemption_limit_reached']);
  });

  it('budget_exhausted when the merchant-funded amount does not fit the remaining budget', () => {
    expect(evalWith({}, { budgetTotal: 1_000, budgetUsed: 500 }).qualifies).toBe(true); // exactly fits
    expect(evalWith({}, { budgetTotal: 1_000, budgetUsed: 501 }).reasons).toEqual([
      'budget_exhausted',
    ]);
    // The fee counts against the budget too.
    expect(
      evalWith({}, { budgetTotal: 1_000, budgetUsed: 500, merchantFeeAmount: 1 }).reasons,
    ).toEqual(['budget_exhausted']);
    expect(evalWith({}, { budgetTotal: null, budgetUsed: 10 ** 12 }).qualifies).toBe(true);
  });

  it('lists every failing rule', () => {
    const r = evalWith(
      {
        merchantId: 'm2',
        amount: '1',
        currency: 'EUR',
        transactedAt: new Date('2027-01-01T00:00:00Z'),
      },
      {},
      { status: 'expired' },
    );
    expect(r.reasons).toEqual([
      'enrollment_inactive',
      'merchant_mismatch',
      'outside_offer_window',
      'currency_mismatch',
      'below_min_spend',
    ]);
  });
});

describe('evaluateOffer: channel, activation window and audience', () => {
  const evalWith = (
    p: Partial<PurchaseFacts>,
    o: Partial<OfferTerms> = {},
    e: Partial<MatchingEnrollment> | null = {},
  ) => evaluateOffer(purchase(p), offer(o), e === null ? null : enrollment(e), '0.5');

  it('channel_mismatch: a channel-restricted offer never matches a purchase without a channel', () => {
    const o = { qualification: { channels: ['online' as const] } };
    expect(evalWith({ channel: 'online' }, o).reasons).toEqual([]);
    expect(evalWith({ channel: 'in_store' }, o).reasons).toEqual(['channel_mismatch']);
    expect(evalWith({}, o).reasons).toEqual(['channel_mismatch']);
    expect(evalWith({ channel: 'in_store' }).reasons).toEqual([]);
  });

  it('activation_expired: the enrollment counts for activation_days after the add, end excluded', () => {
    const addedAt = new Date(AT.getTime() - 7 * DAY);
    const o = { qualification: { activationDays: 7 } };
    expect(evalWith({}, o, { addedAt }).reasons).toEqual(['activation_expired']);
    expect(evalWith({}, o, { addedAt: new Date(addedAt.getTime() + 1) }).reasons).toEqual([]);
    expect(evalWith({}, {}, { addedAt }).reasons).toEqual([]);
  });

  it('audience_mismatch: new pays only a cardholder with no purchase at the merchant inside the lookback', () => {
    const o = { qualification: { audience: 'new' as const, lookbackDays: 30 } };
    expect(evalWith({}, o).reasons).toEqual([]);
    expect(
      evalWith({ lastPurchaseAtMerchant: new Date(AT.getTime() - 31 * DAY) }, o).reasons,
    ).toEqual([]);
    expect(evalWith({ lastPurchaseAtMerchant: new Date(AT.getTime() - DAY) }, o).reasons).toEqual([
      'audience_mismatch',
    ]);
  });

  it('audience_mismatch: lapsed pays only a cardholder whose last purchase is before the lookback', () => {
    const o = { qualification: { audience: 'lapsed' as const, lookbackDays: 30 } };
    expect(evalWith({}, o).reasons).toEqual(['audience_mismatch']);
    expect(
      evalWith({ lastPurchaseAtMerchant: new Date(AT.getTime() - 31 * DAY) }, o).reasons,
    ).toEqual([]);
    expect(evalWith({ lastPurchaseAtMerchant: new Date(AT.getTime() - DAY) }, o).reasons).toEqual([
      'audience_mismatch',
    ]);
  });
});

describe('holdout: a held-out cardholder is never rewarded, and holdout is the first reason', () => {
  // The documented vectors (holdout.spec.ts, docs/lift.md): tok_alice is in bucket 4423, tok_bob 8832.
  const key = Buffer.from(
    '17c014a6f522c98c611426226871e7491f43e9834f33048026292f5bc7daacfa',
    'hex',
  );
  const held = offer({ id: '0b6e2f1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b', holdoutBps: 5000 });
  const as = (cardholderToken: string) => purchase({ holdout: { key, cardholderToken } });

  it('an enrolled cardholder in the holdout does not qualify, holdout first', () => {
    const e = evaluateOffer(as('tok_alice'), held, enrollment({ offerId: held.id }), '0.5');
    expect(e.qualifies).toBe(false);
    expect(e.reasons).toEqual(['holdout']);
    const notEnrolled = evaluateOffer(as('tok_alice'), held, null, '0.5');
    expect(notEnrolled.reasons).toEqual(['holdout', 'not_enrolled']);
  });

  it('a cardholder outside it qualifies as usual; an offer without a holdout holds no one out', () => {
    expect(
      evaluateOffer(as('tok_bob'), held, enrollment({ offerId: held.id }), '0.5').qualifies,
    ).toBe(true);
    const none = offer({ id: held.id });
    expect(
      evaluateOffer(as('tok_alice'), none, enrollment({ offerId: held.id }), '0.5').qualifies,
    ).toBe(true);
  });

  it('allocate makes no redemption for a held-out cardholder', () => {
    const r = allocate(
      [
        {
          transactionId: 't1',
          facts: as('tok_alice'),
          serviceShareRate: '0.5',
          enrollmentIds: ['enr-a'],
        },
      ],
      new Map([[held.id, held]]),
      new Map([['enr-a', enrollment({ offerId: held.id })]]),
    );
    expect(r.redemptions).toEqual([]);
  });
});

describe('selectBest and explain', () => {
  const offers = new Map<string, OfferTerms>([
    ['a', offer({ id: 'a', cashbackAmount: 500 })],
    ['b', offer({ id: 'b', cashbackAmount: 700 })],
    ['c', offer({ id: 'c', cashbackAmount: 700, priority: 5 })],
    ['d', offer({ id: 'd', cashbackAmount: 900, minSpend: 10_000 })],
  ]);
  const evals = [...offers.values()].map((o) =>
    evaluateOffer(purchase(), o, enrollment({ id: `e-${o.id}`, offerId: o.id }), '0.5'),
  );

  it('picks the highest institution payout, then priority, then offer id', () => {
    expect(selectBest(evals, offers)?.offerId).toBe('c');
    const noPriority = new Map(offers);
    noPriority.set('c', { ...offers.get('c')!, priority: 0 });
    expect(selectBest(evals, noPriority)?.offerId).toBe('b');
  });

  it('returns null when nothing qualifies', () => {
    expect(selectBest([evals[3]], offers)).toBeNull();
  });

  it('explain marks the winner match and other qualifying offers better_offer_selected', () => {
    const out = explain(evals, offers);
    expect(out.map((e) => [e.offerId, e.outcome, e.reasons])).toEqual([
      ['a', 'no_match', ['better_offer_selected']],
      ['b', 'no_match', ['better_offer_selected']],
      ['c', 'match', []],
      ['d', 'no_match', ['below_min_spend']],
    ]);
  });
});

describe('allocate', () => {
  const p = (id: string, enrollmentIds: string[], over: Partial<PurchaseFacts> = {}) => ({
    transactionId: id,
    facts: purchase(over),
    serviceShareRate: '0.5',
    enrollmentIds,
  });

  it('never spends more budget than is left, in the order given', () => {
    const offers = new Map([['offer-a', offer({ budgetTotal: 1_500, budgetUsed: 0 })]]);
    const enrollments = new Map<string, MatchingEnrollment>();
    const purchases = [];
    for (let i = 0; i < 5; i++) {
      enrollments.set(`e${i}`, enrollment({ id: `e${i}` }));
      purchases.push(p(`t${i}`, [`e${i}`]));
    }
    const r = allocate(purchases, offers, enrollments);
    expect(r.redemptions.map((x) => x.transactionId)).toEqual(['t0', 't1', 't2']);
    expect(r.budgetDeltas.get('offer-a')).toBe(1_500);
    // The inputs are not modified.
    expect(offers.get('offer-a')!.budgetUsed).toBe(0);
  });

  it('falls back to the next best offer when the best one has no budget left', () => {
    const offers = new Map([
      ['big', offer({ id: 'big', cashbackAmount: 900, budgetTotal: 900 })],
      ['small', offer({ id: 'small', cashbackAmount: 300 })],
    ]);
    const enrollments = new Map([
      ['e-big', enrollment({ id: 'e-big', offerId: 'big', redemptionCount: 0 })],
      ['e-small', enrollment({ id: 'e-small', offerId: 'small' })],
      ['f-big', enrollment({ id: 'f-big', offerId: 'big' })],
      ['f-small', enrollment({ id: 'f-small', offerId: 'small' })],
    ]);
    const r = allocate(
      [p('t1', ['e-big', 'e-small']), p('t2', ['f-big', 'f-small'])],
      offers,
      enrollments,
    );
    expect(r.redemptions.map((x) => [x.transactionId, x.offerId])).toEqual([
      ['t1', 'big'],
      ['t2', 'small'],
    ]);
  });

  it('counts redemptions per enrollment and marks it redeemed at the maximum', () => {
    const offers = new Map([['offer-a', offer({ maxRedemptionsPerCardholder: 2 })]]);
    const enrollments = new Map([['enr-a', enrollment()]]);
    const r = allocate(
      [p('t1', ['enr-a']), p('t2', ['enr-a']), p('t3', ['enr-a'])],
      offers,
      enrollments,
    );
    expect(r.redemptions.map((x) => x.transactionId)).toEqual(['t1', 't2']);
    expect(r.enrollmentUpdates.get('enr-a')).toEqual({ delta: 2, status: 'redeemed' });
  });

  it('keeps an enrollment active while it is below the maximum', () => {
    const offers = new Map([['offer-a', offer({ maxRedemptionsPerCardholder: 3 })]]);
    const r = allocate([p('t1', ['enr-a'])], offers, new Map([['enr-a', enrollment()]]));
    expect(r.enrollmentUpdates.get('enr-a')).toEqual({ delta: 1, status: 'active' });
  });

  it('produces nothing for purchases that qualify for no offer', () => {
    const r = allocate(
      [p('t1', ['enr-a'], { amount: '5' }), p('t2', [])],
      new Map([['offer-a', offer()]]),
      new Map([['enr-a', enrollment()]]),
    );
    expect(r.redemptions).toEqual([]);
    expect(r.budgetDeltas.size).toBe(0);
  });
});
