import type { OfferTerms } from './matching';
import {
  approvalRefusal,
  defaultOfferApproval,
  LiveVersion,
  needsEarlierTerms,
  splitOfferChange,
  termsAt,
  versionAt,
  versionChanges,
} from './offer-versions';

const at = (iso: string) => new Date(iso);

const offer = (over: Partial<OfferTerms> = {}): OfferTerms => ({
  id: 'o1',
  merchantId: 'm1',
  status: 'active',
  currency: 'USD',
  minSpend: 2000,
  rewardType: 'fixed',
  cashbackAmount: 800,
  cashbackPercent: null,
  merchantFeeAmount: 0,
  startsAt: at('2026-01-01T00:00:00Z'),
  expiresAt: at('2027-01-01T00:00:00Z'),
  budgetTotal: 100_000,
  budgetUsed: 4_000,
  maxRedemptionsPerCardholder: 3,
  priority: 0,
  ...over,
});

const v = (effectiveFrom: string | null, cashbackAmount: number, extra = {}): LiveVersion => ({
  effectiveFrom: effectiveFrom === null ? null : at(effectiveFrom),
  terms: {
    minSpend: 2000,
    rewardType: 'fixed',
    cashbackAmount,
    cashbackPercent: null,
    merchantFeeAmount: 0,
    startsAt: at('2026-01-01T00:00:00Z'),
    expiresAt: at('2027-01-01T00:00:00Z'),
    ...extra,
  },
});

describe('approval mode', () => {
  it('is required in production and off elsewhere by default', () => {
    expect(defaultOfferApproval('production')).toBe('required');
    expect(defaultOfferApproval('development')).toBe('off');
    expect(defaultOfferApproval('test')).toBe('off');
  });
});

describe('splitOfferChange: texts, priority and status at once; everything else waits', () => {
  it('splits the fields sent, ignoring undefined', () => {
    expect(
      splitOfferChange({
        translations: { en: { title: 'x' } },
        priority: 2,
        status: 'paused',
        cashback_amount: 8,
        qualification: null,
        holdout_percent: undefined,
      }),
    ).toEqual({
      immediate: { translations: { en: { title: 'x' } }, priority: 2, status: 'paused' },
      money: { cashback_amount: 8, qualification: null },
    });
  });
});

describe('versionChanges', () => {
  it('lists the fields that differ, compared as JSON', () => {
    expect(
      versionChanges(
        {
          cashback_amount: 5,
          qualification: { days_of_week: [1], networks: ['visa'] },
          segments: [],
        },
        {
          cashback_amount: 8,
          qualification: { networks: ['visa'], days_of_week: [1] },
          segments: [],
        },
      ),
    ).toEqual([{ field: 'cashback_amount', from: 5, to: 8 }]);
  });

  it('the first version: every field set, from null', () => {
    expect(versionChanges(null, { cashback_amount: 5, budget_total: null })).toEqual([
      { field: 'cashback_amount', from: null, to: 5 },
    ]);
  });
});

describe('approvalRefusal: four eyes', () => {
  it('refuses an operator who changed the version, not another one nor break-glass', () => {
    expect(approvalRefusal({ type: 'operator', id: 'a' }, ['a', 'b'])).toBe('same_operator');
    expect(approvalRefusal({ type: 'operator', id: 'c' }, ['a', 'b'])).toBeNull();
    expect(approvalRefusal({ type: 'break_glass' }, ['a'])).toBeNull();
  });
});

describe('versionAt and termsAt: the version live at a purchase’s time', () => {
  const versions = [v('2026-03-01T00:00:00Z', 500), v('2026-06-01T00:00:00Z', 800)];

  it('picks the last version effective at or before t, the first before every approval', () => {
    expect(versionAt(versions, at('2026-04-01T00:00:00Z'))?.terms.cashbackAmount).toBe(500);
    expect(versionAt(versions, at('2026-06-01T00:00:00Z'))?.terms.cashbackAmount).toBe(800);
    expect(versionAt(versions, at('2026-02-01T00:00:00Z'))?.terms.cashbackAmount).toBe(500);
  });

  it('an edit made with approval off (no effectiveFrom) applies to every purchase after it went live', () => {
    const mixed = [...versions, v(null, 300)];
    expect(versionAt(mixed, at('2026-04-01T00:00:00Z'))?.terms.cashbackAmount).toBe(300);
    expect(versionAt(mixed, at('2026-07-01T00:00:00Z'))?.terms.cashbackAmount).toBe(300);
    // …and a later approval takes over from its moment.
    const later = [...mixed, v('2026-09-01T00:00:00Z', 900)];
    expect(versionAt(later, at('2026-08-01T00:00:00Z'))?.terms.cashbackAmount).toBe(300);
    expect(versionAt(later, at('2026-10-01T00:00:00Z'))?.terms.cashbackAmount).toBe(900);
  });

  it('termsAt keeps the live row for purchases at or after termsFrom (nothing read)', () => {
    const o = offer({ termsFrom: at('2026-06-01T00:00:00Z') });
    expect(termsAt(o, at('2026-06-02T00:00:00Z'))).toBe(o);
    expect(termsAt(offer(), at('2026-01-02T00:00:00Z'))).toEqual(offer());
  });

  it('termsAt gives an earlier purchase the earlier terms on the current state', () => {
    const o = offer({
      termsFrom: at('2026-06-01T00:00:00Z'),
      versions,
      qualification: { networks: ['visa'] },
      goal: { type: 'purchase_count', target: 3 },
    });
    const old = termsAt(o, at('2026-04-01T00:00:00Z'));
    expect(old.cashbackAmount).toBe(500);
    expect(old.budgetUsed).toBe(4_000);
    expect(old.maxRedemptionsPerCardholder).toBe(3);
    expect(old.qualification).toBeUndefined();
    expect(old.goal).toBeUndefined();
    expect(old.versions).toBeUndefined();
    const withGoal = termsAt(
      {
        ...o,
        versions: [v('2026-03-01T00:00:00Z', 500, { goal: { type: 'purchase_count', target: 2 } })],
      },
      at('2026-04-01T00:00:00Z'),
    );
    expect(withGoal.goal).toEqual({ type: 'purchase_count', target: 2 });
  });

  it('needsEarlierTerms: only when a purchase predates termsFrom', () => {
    expect(needsEarlierTerms(undefined, at('2026-01-01T00:00:00Z'))).toBe(false);
    expect(needsEarlierTerms(at('2026-06-01T00:00:00Z'), at('2026-06-01T00:00:00Z'))).toBe(false);
    expect(needsEarlierTerms(at('2026-06-01T00:00:00Z'), at('2026-05-31T23:59:59Z'))).toBe(true);
  });
});
