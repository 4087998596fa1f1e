import {
  claimResolvedPayload,
  redemptionCompletedPayload,
  redemptionReversedPayload,
  WEBHOOK_EVENT_TYPES,
} from './webhook-payloads';
import { serializeWebhookPayload, WEBHOOK_PAYLOAD_FIELDS } from './webhook-signing';

const facts = {
  redemptionId: 'r1',
  institutionId: 'i1',
  offerId: 'o1',
  cardholderToken: 'chk_0123456789abcdef',
  institutionPayoutMinor: 450,
  currency: 'USD',
};
const at = new Date('2026-11-21T10:00:00.123Z');

describe('webhook payloads', () => {
  it('the catalog lists the five event types', () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual([
      'redemption.completed',
      'redemption.reversed',
      'redemption.settled',
      'webhook.test',
      'claim.resolved',
    ]);
  });

  it('claim.resolved says what an operator decided, the cardholder masked only', () => {
    const p = claimResolvedPayload(
      {
        claimId: 'claim-1',
        institutionId: facts.institutionId,
        offerId: facts.offerId,
        transactionRef: 'txn-1',
        status: 'rejected',
        reasons: ['below_min_spend'],
        redemptionId: null,
        cardholderToken: 'chk_8f14e45fceea167a5a36dedd4bea2543',
      },
      at,
    );
    expect(p).toEqual({
      event: 'claim.resolved',
      claim_id: 'claim-1',
      institution_id: facts.institutionId,
      offer_id: facts.offerId,
      transaction_ref: 'txn-1',
      status: 'rejected',
      reasons: ['below_min_spend'],
      redemption_id: null,
      cardholder_token_masked: 'chk_****2543',
      occurred_at: at.toISOString(),
    });
    expect(JSON.stringify(p)).not.toContain('8f14e45fceea167a5a36dedd4bea2543');
  });

  it('redemption.completed carries exactly the published fields, in their order', () => {
    const p = redemptionCompletedPayload(facts, at);
    expect(Object.keys(p)).toEqual([...WEBHOOK_PAYLOAD_FIELDS]);
    expect(p).toEqual({
      event: 'redemption.completed',
      redemption_id: 'r1',
      institution_id: 'i1',
      offer_id: 'o1',
      cardholder_token: 'chk_0123456789abcdef',
      cardholder_token_masked: 'chk_****cdef',
      institution_payout_amount: 4.5,
      occurred_at: '2026-11-21T10:00:00.123Z',
    });
  });

  it('redemption.reversed has the same fields with its own event, then the clawback', () => {
    const p = redemptionReversedPayload(facts, 1200, at);
    expect(Object.keys(p)).toEqual([...WEBHOOK_PAYLOAD_FIELDS, 'clawback_amount']);
    expect(p).toMatchObject({ event: 'redemption.reversed', clawback_amount: 12 });
    expect(redemptionReversedPayload(facts, null, at).clawback_amount).toBeNull();
    // the wire order survives a round trip through jsonb (which does not keep key order)
    const shuffled = Object.fromEntries(Object.entries(p).reverse());
    expect(Object.keys(JSON.parse(serializeWebhookPayload(shuffled).toString()))).toEqual(
      Object.keys(p),
    );
  });
});
