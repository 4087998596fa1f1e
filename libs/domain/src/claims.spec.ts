import {
  claimBarrier,
  ClaimedRecord,
  awaitsOperator,
  decideApproval,
  decideEvidence,
  decideStored,
  repeatReevaluates,
  withinClaimWindow,
} from './claims';
import { DAY_MS } from './timestamp';

const now = new Date('2026-11-26T12:00:00Z');
const purchase: ClaimedRecord = {
  kind: 'purchase',
  history: false,
  cardholderToken: 'ch_1',
  transactedAt: new Date(now.getTime() - DAY_MS),
  rewardOn: 'clearing',
};
const OFFER = 'offer-a';
const OTHER = 'offer-b';

describe('a claim for a stored record meets a barrier before any offer is evaluated', () => {
  it('a refund or a void is not a purchase', () => {
    expect(claimBarrier({ ...purchase, kind: 'refund' }, 'ch_1', 90, now)).toBe('not_a_purchase');
    expect(claimBarrier({ ...purchase, kind: 'authorization_reversal' }, 'ch_1', 90, now)).toBe(
      'not_a_purchase',
    );
  });

  it('a historical backfill record is never rewarded', () => {
    expect(claimBarrier({ ...purchase, history: true }, 'ch_1', 90, now)).toBe(
      'historical_transaction',
    );
  });

  it("another cardholder's purchase is not this cardholder's", () => {
    expect(claimBarrier(purchase, 'ch_2', 90, now)).toBe('cardholder_mismatch');
  });

  it('an authorization under reward_on=clearing waits for its clearing; under authorization it is evaluated', () => {
    const auth = { ...purchase, kind: 'authorization' as const };
    expect(claimBarrier(auth, 'ch_1', 90, now)).toBe('awaiting_clearing');
    expect(claimBarrier({ ...auth, rewardOn: 'authorization' }, 'ch_1', 90, now)).toBeNull();
    expect(claimBarrier({ ...purchase, kind: 'clearing' }, 'ch_1', 90, now)).toBeNull();
  });

  it('a purchase older than the claim window is too late', () => {
    const old = { ...purchase, transactedAt: new Date(now.getTime() - 91 * DAY_MS) };
    expect(claimBarrier(old, 'ch_1', 90, now)).toBe('claim_window_expired');
    expect(claimBarrier(old, 'ch_1', 91, now)).toBeNull();
  });

  it('a purchase of this cardholder inside the window meets none', () => {
    expect(claimBarrier(purchase, 'ch_1', 90, now)).toBeNull();
  });
});

describe('the claim window', () => {
  it('includes its last instant and no later one', () => {
    const edge = new Date(now.getTime() - 90 * DAY_MS);
    expect(withinClaimWindow(edge, 90, now)).toBe(true);
    expect(withinClaimWindow(new Date(edge.getTime() - 1), 90, now)).toBe(false);
  });
});

describe('a stored purchase, matched again for the claim, decides it', () => {
  const none = { alreadyRewarded: null, redemption: null, verdicts: [] };

  it('a redemption that existed before the claim: already_rewarded, with it', () => {
    expect(decideStored(OFFER, { ...none, alreadyRewarded: 'r0' })).toEqual({
      status: 'already_rewarded',
      reasons: [],
      redemptionId: 'r0',
    });
  });

  it('the claimed offer won: approved', () => {
    expect(decideStored(OFFER, { ...none, redemption: { id: 'r1', offerId: OFFER } })).toEqual({
      status: 'approved',
      reasons: [],
      redemptionId: 'r1',
    });
  });

  it('another offer won: rewarded_other_offer, with that redemption', () => {
    expect(decideStored(OFFER, { ...none, redemption: { id: 'r2', offerId: OTHER } })).toEqual({
      status: 'rewarded_other_offer',
      reasons: [],
      redemptionId: 'r2',
    });
  });

  it("nothing won: rejected with the claimed offer's reasons", () => {
    const verdicts = [
      { offerId: OFFER, outcome: 'no_match' as const, reasons: ['below_min_spend'] },
      { offerId: OTHER, outcome: 'no_match' as const, reasons: ['not_enrolled'] },
    ];
    expect(decideStored(OFFER, { ...none, verdicts })).toEqual({
      status: 'rejected',
      reasons: ['below_min_spend'],
      redemptionId: null,
    });
  });

  it("an offer the purchase was not evaluated against is not its merchant's", () => {
    expect(decideStored(OFFER, none).reasons).toEqual(['merchant_mismatch']);
  });
});

describe('a purchase that is not stored is judged on its evidence', () => {
  it('the claimed offer would reward it: pending_review for an operator', () => {
    expect(decideEvidence(OFFER, [{ offerId: OFFER, outcome: 'match', reasons: [] }]).status).toBe(
      'pending_review',
    );
  });

  it('it would not: rejected with the reasons', () => {
    expect(
      decideEvidence(OFFER, [{ offerId: OFFER, outcome: 'no_match', reasons: ['not_enrolled'] }]),
    ).toEqual({ status: 'rejected', reasons: ['not_enrolled'], redemptionId: null });
  });
});

describe("an operator's approval", () => {
  it('rewards as a stored claim does', () => {
    expect(
      decideApproval(OFFER, {
        alreadyRewarded: null,
        redemption: { id: 'r1', offerId: OFFER },
        verdicts: [],
      }),
    ).toEqual({ ok: true, decision: { status: 'approved', reasons: [], redemptionId: 'r1' } });
  });

  it("is refused with the rule's code when budget or limits say no (the claim stays pending)", () => {
    expect(
      decideApproval(OFFER, {
        alreadyRewarded: null,
        redemption: null,
        verdicts: [{ offerId: OFFER, outcome: 'no_match', reasons: ['budget_exhausted'] }],
      }),
    ).toEqual({ ok: false, code: 'budget_exhausted' });
  });
});

describe('repeats and decisions', () => {
  it('a repeat re-evaluates only a claim the rules rejected', () => {
    expect(repeatReevaluates({ status: 'rejected', decidedBy: 'rules' })).toBe(true);
    expect(repeatReevaluates({ status: 'rejected', decidedBy: 'operator' })).toBe(false);
    expect(repeatReevaluates({ status: 'approved', decidedBy: 'rules' })).toBe(false);
    expect(repeatReevaluates({ status: 'pending_review', decidedBy: null })).toBe(false);
  });

  it('only a pending_review claim takes an operator decision', () => {
    expect(awaitsOperator('pending_review')).toBe(true);
    for (const s of ['approved', 'rejected', 'already_rewarded', 'rewarded_other_offer'] as const)
      expect(awaitsOperator(s)).toBe(false);
  });
});
