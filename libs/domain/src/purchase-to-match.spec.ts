import {
  ClaimedPurchase,
  compareAllocationOrder,
  latestEarlierPurchases,
  toPurchasesToMatch,
} from './purchase-to-match';
import { PROGRAM_DEFAULTS } from './program-defaults';

const at = (iso: string) => new Date(iso);
const purchase = (over: Partial<ClaimedPurchase> = {}): ClaimedPurchase => ({
  id: 'p1',
  kind: 'purchase',
  amount: '25.00',
  refunded: '0',
  currency: 'USD',
  transacted_at: at('2026-03-01T10:00:00Z'),
  merchant_id: 'm1',
  network: 'visa',
  channel: 'in_store',
  time_zone: 'Europe/Paris',
  service_share_rate: '0.3',
  ...over,
});

describe('allocation order', () => {
  it('earlier purchases first; the same instant by id', () => {
    const list = [
      purchase({ id: 'b', transacted_at: at('2026-03-01T10:00:00Z') }),
      purchase({ id: 'c', transacted_at: at('2026-03-01T09:00:00Z') }),
      purchase({ id: 'a', transacted_at: at('2026-03-01T10:00:00Z') }),
    ];
    expect(list.sort(compareAllocationOrder).map((p) => p.id)).toEqual(['c', 'a', 'b']);
  });
});

describe('the purchases to allocate', () => {
  it('in allocation order, net of stored refunds, with candidates and history', () => {
    const last = at('2026-01-01T00:00:00Z');
    const out = toPurchasesToMatch(
      [
        purchase({ id: 'p2', transacted_at: at('2026-03-02T00:00:00Z') }),
        purchase({ id: 'p1', refunded: '5.5' }),
      ],
      (p) => [`e-${p.id}`],
      new Map([['p1', last]]),
    );
    expect(out.map((p) => p.transactionId)).toEqual(['p1', 'p2']);
    expect(out[0]).toEqual({
      transactionId: 'p1',
      facts: {
        merchantId: 'm1',
        amount: '19.5',
        currency: 'USD',
        transactedAt: at('2026-03-01T10:00:00Z'),
        network: 'visa',
        timeZone: 'Europe/Paris',
        channel: 'in_store',
        lastPurchaseAtMerchant: last,
      },
      serviceShareRate: '0.3',
      enrollmentIds: ['e-p1'],
    });
    expect(out[1].facts.lastPurchaseAtMerchant).toBeNull();
  });

  it('an authorization does not count toward goal offers (its chain counts on the clearing)', () => {
    const [auth, clearing] = toPurchasesToMatch(
      [
        purchase({ id: 'a', kind: 'authorization' }),
        purchase({ id: 'b', kind: 'clearing', transacted_at: at('2026-03-02T00:00:00Z') }),
      ],
      () => [],
      new Map(),
    );
    expect(auth.facts.countsTowardGoals).toBe(false);
    expect(clearing.facts).not.toHaveProperty('countsTowardGoals');
  });

  it('defaults: the program share rate, the program time zone, a blank currency as none', () => {
    const [p] = toPurchasesToMatch(
      [purchase({ service_share_rate: null, time_zone: null, currency: '  ' })],
      () => [],
      new Map(),
    );
    expect(p.serviceShareRate).toBe(PROGRAM_DEFAULTS.serviceShareRate);
    expect(p.facts.timeZone).toBeUndefined();
    expect(p.facts.currency).toBeNull();
  });
});

describe('the latest earlier purchase at the merchant', () => {
  const keyOf = (p: { id: string; key?: string }) => p.key ?? 'k';
  const p = (id: string, iso: string, key?: string) => ({ id, transacted_at: at(iso), key });

  it('an earlier purchase of the same cardholder and merchant in the chunk counts when later than the stored one', () => {
    const first = p('a', '2026-03-01T09:00:00Z');
    const second = p('b', '2026-03-01T10:00:00Z');
    const out = latestEarlierPurchases(
      [first, second],
      [first, second],
      keyOf,
      new Map([
        ['a', at('2026-02-01T00:00:00Z')],
        ['b', at('2026-02-01T00:00:00Z')],
      ]),
    );
    expect(out.get('a')).toEqual(at('2026-02-01T00:00:00Z'));
    expect(out.get('b')).toEqual(at('2026-03-01T09:00:00Z'));
  });

  it('not a later or simultaneous one, nor one of another cardholder or merchant', () => {
    const mine = p('a', '2026-03-01T10:00:00Z');
    const out = latestEarlierPurchases(
      [mine],
      [
        mine,
        p('b', '2026-03-01T10:00:00Z'),
        p('c', '2026-03-01T11:00:00Z'),
        p('d', '2026-03-01T09:00:00Z', 'other'),
      ],
      keyOf,
      new Map(),
    );
    expect(out.get('a')).toBeNull();
  });
});
