import {
  claimResolvedPayload,
  redemptionCompletedPayload,
  redemptionReversedPayload,
  statementClosedPayload,
  WEBHOOK_EVENT_TYPES,
} from './webhook-payloads';
import {
  REDEMPTION_EVENT_ADDED_FIELDS,
  serializeWebhookPayload,
  WEBHOOK_PAYLOAD_FIELDS,
} from './webhook-signing';

const facts = {
  redemptionId: 'r1',
  institutionId: 'i1',
  offerId: 'o1',
  cardholderToken: 'chk_0123456789abcdef',
  institutionPayoutMinor: 450,
  currency: 'USD',
  transactionRef: 'pos-881',
  purchaseMinor: 2_500,
  merchantFundedMinor: 600,
  goalRound: null,
};
const refund = { reason: 'refund' as const, transactionRef: 'pos-881-r' };
const added = REDEMPTION_EVENT_ADDED_FIELDS.filter(
  (f) => f !== 'clawback_amount' && !f.startsWith('reversal_'),
);
const at = new Date('2026-11-21T10:00:00.123Z');

describe('webhook payloads', () => {
  it('the catalog lists the event types', () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual([
      'redemption.completed',
      'redemption.reversed',
      'redemption.settled',
      'statement.closed',
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

  it('statement.closed: the period, figures in major units, the checksum and where its lines are', () => {
    const p = statementClosedPayload(
      {
        id: 's1',
        institutionId: 'i1',
        granularity: 'day',
        periodStart: '2026-11-25',
        periodEnd: '2026-11-25',
        timeZone: 'America/Sao_Paulo',
        currency: 'BHD',
        checksum: 'ab'.repeat(32),
        pendingOpening: 12_500,
        earned: 4_250,
        reversed: 250,
        settled: 1_000,
        pendingClosing: 15_500,
        clawedBack: 125,
        netPayout: 875,
        movementCount: 7,
      },
      at,
    );
    expect(p).toEqual({
      event: 'statement.closed',
      statement_id: 's1',
      institution_id: 'i1',
      granularity: 'day',
      period_start: '2026-11-25',
      period_end: '2026-11-25',
      time_zone: 'America/Sao_Paulo',
      currency: 'BHD',
      checksum: 'ab'.repeat(32),
      pending_opening: 12.5,
      earned: 4.25,
      reversed: 0.25,
      settled: 1,
      pending_closing: 15.5,
      clawed_back: 0.125,
      net_payout: 0.875,
      movement_count: 7,
      lines_path: '/api/v1/statements/s1/lines',
      occurred_at: '2026-11-21T10:00:00.123Z',
    });
    const shuffled = Object.fromEntries(Object.entries(p).reverse());
    expect(Object.keys(JSON.parse(serializeWebhookPayload(shuffled).toString()))).toEqual(
      Object.keys(p),
    );
  });

  it('redemption.completed carries the published fields, in their order, then what reconciles it', () => {
    const p = redemptionCompletedPayload(facts, at);
    expect(Object.keys(p)).toEqual([...WEBHOOK_PAYLOAD_FIELDS, ...added]);
    expect(p).toEqual({
      event: 'redemption.completed',
      redemption_id: 'r1',
      institution_id: 'i1',
      offer_id: 'o1',
      cardholder_token: 'chk_0123456789abcdef',
      cardholder_token_masked: 'chk_****cdef',
      institution_payout_amount: 4.5,
      occurred_at: '2026-11-21T10:00:00.123Z',
      transaction_ref: 'pos-881',
      purchase_amount: 25,
      merchant_funded_amount: 6,
      goal_round: null,
      currency: 'USD',
    });
  });

  it("a goal's redemption names its round; amounts are in the currency's major units", () => {
    const p = redemptionCompletedPayload(
      { ...facts, currency: 'JPY', purchaseMinor: 12_000, goalRound: 3 },
      at,
    );
    expect(p).toMatchObject({ purchase_amount: 12_000, goal_round: 3, currency: 'JPY' });
  });

  it('redemption.reversed has the same fields with its own event, the clawback, then its cause', () => {
    const p = redemptionReversedPayload(facts, 1200, refund, at);
    expect(Object.keys(p)).toEqual([...WEBHOOK_PAYLOAD_FIELDS, ...REDEMPTION_EVENT_ADDED_FIELDS]);
    expect(p).toMatchObject({
      event: 'redemption.reversed',
      clawback_amount: 12,
      transaction_ref: 'pos-881',
      reversal_reason: 'refund',
      reversal_transaction_ref: 'pos-881-r',
    });
    expect(redemptionReversedPayload(facts, null, refund, at).clawback_amount).toBeNull();
    const expired = { reason: 'authorization_expired' as const, transactionRef: null };
    expect(redemptionReversedPayload(facts, null, expired, at).reversal_transaction_ref).toBeNull();
    // the wire order survives a round trip through jsonb (which does not keep key order)
    const shuffled = Object.fromEntries(Object.entries(p).reverse());
    expect(Object.keys(JSON.parse(serializeWebhookPayload(shuffled).toString()))).toEqual(
      Object.keys(p),
    );
  });

  it('a body stored before the added fields is sent in the order it was sent then', () => {
    const before = {
      occurred_at: '2026-11-21T10:00:00.123Z',
      clawback_amount: null,
      event: 'redemption.reversed',
      redemption_id: 'r1',
    };
    expect(serializeWebhookPayload(before).toString()).toBe(
      '{"event":"redemption.reversed","redemption_id":"r1","occurred_at":"2026-11-21T10:00:00.123Z","clawback_amount":null}',
    );
    const test = { message: 'm', occurred_at: 'o', institution_id: 'i', event: 'webhook.test' };
    expect(Object.keys(JSON.parse(serializeWebhookPayload(test).toString()))).toEqual([
      'event',
      'institution_id',
      'occurred_at',
      'message',
    ]);
  });
});
