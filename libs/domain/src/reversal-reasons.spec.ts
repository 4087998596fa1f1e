import { causingRefund, chainCause, refundCause, REVERSAL_REASONS } from './reversal-reasons';

describe('why a redemption was reversed', () => {
  it('the five reasons', () => {
    expect(REVERSAL_REASONS).toEqual([
      'refund',
      'void',
      'authorization_expired',
      'clearing_changed',
      'goal_round_below_target',
    ]);
  });

  it("a refund's reversal names the refund; a goal round's says the round fell below target", () => {
    const r = { transaction_ref: 'pos-1-r' };
    expect(refundCause(r, false)).toEqual({ reason: 'refund', transactionRef: 'pos-1-r' });
    expect(refundCause(r, true)).toEqual({
      reason: 'goal_round_below_target',
      transactionRef: 'pos-1-r',
    });
  });

  it('of several refunds of one run, the latest took the net amount below the line', () => {
    const at = (iso: string) => new Date(iso);
    const refunds = [
      { id: 'b', transaction_ref: 'r-2', transacted_at: at('2026-11-21T10:00:00Z') },
      { id: 'c', transaction_ref: 'r-3', transacted_at: at('2026-11-21T09:00:00Z') },
      { id: 'a', transaction_ref: 'r-1', transacted_at: at('2026-11-21T10:00:00Z') },
    ];
    expect(causingRefund(refunds)?.transaction_ref).toBe('r-2');
    expect(causingRefund([])).toBeNull();
  });

  it('the card lifecycle: a void, an expiry (no record), a clearing that changed the reward', () => {
    expect(chainCause('authorization_reversal', 'v-1')).toEqual({
      reason: 'void',
      transactionRef: 'v-1',
    });
    expect(chainCause('expiry', null)).toEqual({
      reason: 'authorization_expired',
      transactionRef: null,
    });
    expect(chainCause('clearing', 'c-1')).toEqual({
      reason: 'clearing_changed',
      transactionRef: 'c-1',
    });
  });
});
