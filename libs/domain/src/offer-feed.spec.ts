import { DAY_MS as DAY } from './timestamp';
import {
  AffinitySignals,
  affinityOf,
  compareForSort,
  decideEnrollment,
  effectiveFeedLimit,
  EnrollmentFacts,
  FeedOffer,
  isLiveAt,
  liveForSegment,
  localize,
  normalizeLocale,
  parseHintList,
  prepareHints,
  rankByAffinity,
  reasonText,
  redeemedOfferIds,
  redeemedToLimit,
  resolveLocale,
  segmentAllows,
  sortForProgram,
} from './offer-feed';

const NOW = Date.parse('2026-11-21T12:00:00Z');

let seq = 0;
function offer(over: Partial<FeedOffer> = {}): FeedOffer {
  seq++;
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    merchantId: `aaaaaaaa-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    merchantName: `Merchant ${seq}`,
    category: 'groceries',
    translations: { en: { title: `Offer ${seq}`, description: 'd' } },
    cashbackAmount: 500,
    currency: 'USD',
    startsAt: NOW - DAY,
    expiresAt: NOW + DAY,
    segments: [],
    maxRedemptionsPerCardholder: 1,
    priority: 0,
    ...over,
  };
}

const noSignals = (over: Partial<AffinitySignals> = {}): AffinitySignals => ({
  hints: prepareHints([], []),
  merchantHistory: new Map(),
  categoryHistory: new Map(),
  popularity: new Map(),
  ...over,
});

describe('eligibility', () => {
  it('is live from starts_at (inclusive) to expires_at (exclusive)', () => {
    const o = { startsAt: NOW, expiresAt: NOW + 1000 };
    expect(isLiveAt(o, NOW - 1)).toBe(false);
    expect(isLiveAt(o, NOW)).toBe(true);
    expect(isLiveAt(o, NOW + 999)).toBe(true);
    expect(isLiveAt(o, NOW + 1000)).toBe(false);
  });

  it('segment rule: unrestricted always; restricted only on an exact match', () => {
    expect(segmentAllows([], undefined)).toBe(true);
    expect(segmentAllows([], 'gold')).toBe(true);
    expect(segmentAllows(['gold', 'platinum'], 'platinum')).toBe(true);
    expect(segmentAllows(['gold'], undefined)).toBe(false);
    expect(segmentAllows(['gold'], null)).toBe(false);
    expect(segmentAllows(['gold'], 'silver')).toBe(false);
    expect(segmentAllows(['gold'], 'GOLD')).toBe(false);
  });

  it('redeemed to the limit: status redeemed, or the count at the per-cardholder maximum', () => {
    expect(redeemedToLimit(undefined, 1)).toBe(false);
    expect(redeemedToLimit({ status: 'active', redemptionCount: 0 }, 1)).toBe(false);
    expect(redeemedToLimit({ status: 'active', redemptionCount: 1 }, 1)).toBe(true);
    expect(redeemedToLimit({ status: 'active', redemptionCount: 1 }, 3)).toBe(false);
    expect(redeemedToLimit({ status: 'redeemed', redemptionCount: 0 }, 3)).toBe(true);
  });

  it('live for the segment minus those redeemed to the limit: the given order, without what the cardholder may not see', () => {
    const a = offer();
    const notYet = offer({ startsAt: NOW + 1 });
    const expired = offer({ expiresAt: NOW });
    const gold = offer({ segments: ['gold'] });
    const used = offer();
    const reusable = offer({ maxRedemptionsPerCardholder: 2 });
    const enrollments = new Map([
      [used.id, { status: 'active', redemptionCount: 1 }],
      [reusable.id, { status: 'active', redemptionCount: 1 }],
    ]);
    const all = [reusable, a, notYet, expired, gold, used];
    const eligible = (segment?: string) => {
      const { offers } = liveForSegment(all, NOW, segment);
      const out = redeemedOfferIds(new Map(offers.map((o) => [o.id, o])), enrollments);
      return offers.filter((o) => !out.has(o.id)).map((o) => o.id);
    };
    expect(eligible()).toEqual([reusable.id, a.id]);
    expect(eligible('gold')).toEqual([reusable.id, a.id, gold.id]);
  });

  it('the live list for a segment holds until the next start or expiry', () => {
    const a = offer({ expiresAt: NOW + 5_000 });
    const notYet = offer({ startsAt: NOW + 2_000 });
    const expired = offer({ expiresAt: NOW });
    const gold = offer({ segments: ['gold'], expiresAt: NOW + 1_000 });
    const all = [a, notYet, expired, gold];
    const plain = liveForSegment(all, NOW, undefined);
    expect(plain.offers.map((o) => o.id)).toEqual([a.id]);
    // gold's expiry ends the list even for a caller without the segment: one bound for all.
    expect(plain.validUntil).toBe(NOW + 1_000);
    expect(liveForSegment(all, NOW, 'gold').offers.map((o) => o.id)).toEqual([a.id, gold.id]);
    // At validUntil the list is different; just before, it is the same.
    expect(liveForSegment(all, NOW + 999, 'gold').offers).toEqual([a, gold]);
    expect(liveForSegment(all, NOW + 1_000, 'gold').offers).toEqual([a]);
    expect(liveForSegment(all, NOW + 2_000, undefined)).toEqual({
      offers: [a, notYet],
      validUntil: NOW + 5_000,
    });
    expect(liveForSegment([expired], NOW, undefined).validUntil).toBe(Infinity);
  });

  it('redeemedOfferIds walks the enrollments: those of the list redeemed to the limit', () => {
    const a = offer();
    const gold = offer({ segments: ['gold'] });
    const used = offer();
    const reusable = offer({ maxRedemptionsPerCardholder: 2 });
    const redeemed = offer({ maxRedemptionsPerCardholder: 5 });
    const enrollments = new Map([
      [used.id, { status: 'active', redemptionCount: 1 }],
      [reusable.id, { status: 'active', redemptionCount: 1 }],
      [redeemed.id, { status: 'redeemed', redemptionCount: 1 }],
      [gold.id, { status: 'active', redemptionCount: 1 }],
      ['not-in-the-list', { status: 'redeemed', redemptionCount: 9 }],
    ]);
    const all = [a, gold, used, reusable, redeemed];
    const { offers } = liveForSegment(all, NOW, undefined);
    const out = redeemedOfferIds(new Map(offers.map((o) => [o.id, o])), enrollments);
    expect([...out].sort()).toEqual([used.id, redeemed.id].sort());
    expect(offers.filter((o) => !out.has(o.id))).toEqual([a, reusable]);
  });
});

describe('program sort orders', () => {
  const ids = (list: FeedOffer[]) => list.map((o) => o.id);

  it('featured: priority desc, then newest, then id', () => {
    const low = offer({ priority: 1 });
    const highOld = offer({ priority: 5, startsAt: NOW - 3 * DAY });
    const highNew = offer({ priority: 5, startsAt: NOW - DAY });
    const tieA = offer({ priority: 0, startsAt: NOW - DAY, id: 'b' });
    const tieB = offer({ priority: 0, startsAt: NOW - DAY, id: 'a' });
    expect(ids(sortForProgram([low, tieA, highOld, tieB, highNew], 'featured'))).toEqual([
      highNew.id,
      highOld.id,
      low.id,
      'a',
      'b',
    ]);
  });

  it('ending_soon: expires_at ascending', () => {
    const late = offer({ expiresAt: NOW + 9 * DAY });
    const soon = offer({ expiresAt: NOW + DAY });
    const mid = offer({ expiresAt: NOW + 3 * DAY });
    expect(ids(sortForProgram([late, soon, mid], 'ending_soon'))).toEqual([
      soon.id,
      mid.id,
      late.id,
    ]);
  });

  it('highest_cashback: amount desc, compared in major units across currencies', () => {
    const five = offer({ cashbackAmount: 500 });
    const ten = offer({ cashbackAmount: 1000 });
    const yen = offer({ cashbackAmount: 800, currency: 'JPY' }); // 800 yen: 800 major units
    expect(ids(sortForProgram([five, ten, yen], 'highest_cashback'))).toEqual([
      yen.id,
      ten.id,
      five.id,
    ]);
  });

  it('newest: starts_at descending; ties by id', () => {
    const old = offer({ startsAt: NOW - 5 * DAY });
    const fresh = offer({ startsAt: NOW - DAY, id: 'z' });
    const freshToo = offer({ startsAt: NOW - DAY, id: 'y' });
    expect(ids(sortForProgram([old, fresh, freshToo], 'newest'))).toEqual(['y', 'z', old.id]);
  });

  it('is total: a comparator never answers 0 for two different offers', () => {
    const a = offer({ id: 'a' });
    const b = offer({ id: 'b', startsAt: a.startsAt, expiresAt: a.expiresAt });
    for (const order of ['featured', 'ending_soon', 'highest_cashback', 'newest'] as const) {
      expect(compareForSort(order)(a, b)).toBeLessThan(0);
      expect(compareForSort(order)(b, a)).toBeGreaterThan(0);
    }
  });
});

describe('limit', () => {
  it('absent → the widget limit; above it → capped; below → as asked', () => {
    expect(effectiveFeedLimit(undefined, 20)).toBe(20);
    expect(effectiveFeedLimit(100, 20)).toBe(20);
    expect(effectiveFeedLimit(5, 20)).toBe(5);
  });
});

describe('locale', () => {
  it('normalizes forgivingly onto en, es and pt-BR', () => {
    expect(normalizeLocale('pt-BR')).toBe('pt-BR');
    expect(normalizeLocale('pt-br')).toBe('pt-BR');
    expect(normalizeLocale('pt')).toBe('pt-BR');
    expect(normalizeLocale('es-MX')).toBe('es');
    expect(normalizeLocale('EN-gb')).toBe('en');
    expect(normalizeLocale('fr')).toBeNull();
    expect(normalizeLocale(undefined)).toBeNull();
  });

  it("uses the requested language when the program offers it, else the program's first", () => {
    expect(resolveLocale('es', ['en', 'es'])).toBe('es');
    expect(resolveLocale('pt-BR', ['es', 'en'])).toBe('es');
    expect(resolveLocale(undefined, ['pt-BR', 'en'])).toBe('pt-BR');
    expect(resolveLocale('fr', ['en', 'es'])).toBe('en');
  });

  it("a missing translation falls back to the program's first locale, then English, then any", () => {
    const tr = { en: { title: 'Hello', description: 'EN' }, es: { title: 'Hola' } };
    expect(localize(tr, 'es', 'en')).toEqual({ title: 'Hola', description: '' });
    expect(localize(tr, 'pt-BR', 'es')).toEqual({ title: 'Hola', description: '' });
    expect(localize(tr, 'pt-BR', 'en')).toEqual({ title: 'Hello', description: 'EN' });
    expect(localize({ 'pt-BR': { title: 'Olá' } }, 'es', 'en')).toEqual({
      title: 'Olá',
      description: '',
    });
  });
});

describe('personalization', () => {
  it('parses comma-separated hints: trimmed, empties and duplicates dropped', () => {
    expect(parseHintList(' a, b,,a ,c ')).toEqual(['a', 'b', 'c']);
    expect(parseHintList('')).toEqual([]);
    expect(parseHintList(undefined)).toEqual([]);
  });

  it('precedence: preferred merchant > preferred category > shopped here > category affinity > popular', () => {
    const o = offer({ merchantName: 'Green  Grocer', category: 'groceries' });
    const history = {
      merchantHistory: new Map([[o.merchantId, 3]]),
      categoryHistory: new Map([['groceries', 5]]),
    };
    expect(
      affinityOf(o, noSignals({ ...history, hints: prepareHints(['green grocer'], ['groceries']) }))
        .code,
    ).toBe('preferred_merchant');
    expect(
      affinityOf(
        o,
        noSignals({ ...history, hints: prepareHints([o.merchantId.toUpperCase()], []) }),
      ).code,
    ).toBe('preferred_merchant');
    expect(
      affinityOf(o, noSignals({ ...history, hints: prepareHints(['Other'], ['GROCERIES']) })).code,
    ).toBe('preferred_category');
    expect(affinityOf(o, noSignals(history)).code).toBe('shopped_here');
    expect(affinityOf(o, noSignals({ categoryHistory: history.categoryHistory })).code).toBe(
      'category_affinity',
    );
    expect(affinityOf(o, noSignals()).code).toBe('popular');
  });

  it('ranks by tier, then strength, and keeps the program order on ties', () => {
    const p1 = offer({ category: 'travel' });
    const p2 = offer({ category: 'travel' });
    const shopped = offer({ category: 'travel' });
    const shoppedMore = offer({ category: 'travel' });
    const cat = offer({ category: 'fuel' });
    const hinted = offer({ category: 'travel' });
    const popular = offer({ category: 'travel' });
    const signals = noSignals({
      hints: prepareHints([hinted.merchantName], ['books']),
      merchantHistory: new Map([
        [shopped.merchantId, 1],
        [shoppedMore.merchantId, 4],
      ]),
      categoryHistory: new Map([['fuel', 2]]),
      popularity: new Map([[popular.id, 7]]),
    });
    const ranked = rankByAffinity([p1, p2, shopped, cat, hinted, popular, shoppedMore], signals);
    expect(ranked.map((r) => [r.offer.id, r.affinity.code])).toEqual([
      [hinted.id, 'preferred_merchant'],
      [shoppedMore.id, 'shopped_here'],
      [shopped.id, 'shopped_here'],
      [cat.id, 'category_affinity'],
      [popular.id, 'popular'],
      [p1.id, 'popular'],
      [p2.id, 'popular'],
    ]);
  });

  it('with a limit, answers the first offers of the same ranking, ties in the program order', () => {
    const catalogue = Array.from({ length: 60 }, (_, i) =>
      offer({ category: ['travel', 'fuel', 'books'][i % 3] }),
    );
    const signals = noSignals({
      hints: prepareHints([catalogue[50].merchantName], ['books']),
      merchantHistory: new Map(catalogue.slice(0, 30).map((o, i) => [o.merchantId, i % 4])),
      categoryHistory: new Map([['fuel', 2]]),
      popularity: new Map(catalogue.map((o, i) => [o.id, i % 5])),
    });
    const all = rankByAffinity(catalogue, signals);
    for (const limit of [0, 1, 2, 7, 20, 59, 60, 100])
      expect(rankByAffinity(catalogue, signals, limit)).toEqual(all.slice(0, limit));
    // `except` leaves offers out as if they were not given.
    const except = new Set(all.filter((_, i) => i % 4 === 1).map((r) => r.offer.id));
    const rest = rankByAffinity(
      catalogue.filter((o) => !except.has(o.id)),
      signals,
    );
    for (const limit of [1, 7, 44, 45, 100])
      expect(rankByAffinity(catalogue, signals, limit, except)).toEqual(rest.slice(0, limit));
    // Without hints, and with popularity only.
    const plain = noSignals({ popularity: signals.popularity });
    expect(rankByAffinity(catalogue, plain, 9)).toEqual(
      rankByAffinity(catalogue, plain).slice(0, 9),
    );
  });

  it('reason texts are localized and name the merchant where useful', () => {
    expect(reasonText('shopped_here', 'en', 'Green Grocer')).toBe(
      'Because you shop at Green Grocer',
    );
    expect(reasonText('shopped_here', 'es', 'Green Grocer')).toBe('Porque compras en Green Grocer');
    expect(reasonText('shopped_here', 'pt-BR', 'Green Grocer')).toBe(
      'Porque você compra em Green Grocer',
    );
    expect(reasonText('popular', 'xx', 'M')).toBe('A popular offer');
    for (const locale of ['en', 'es', 'pt-BR']) {
      const texts = (
        [
          'preferred_merchant',
          'preferred_category',
          'shopped_here',
          'category_affinity',
          'popular',
        ] as const
      ).map((c) => reasonText(c, locale, 'M'));
      expect(new Set(texts).size).toBe(5);
    }
  });
});

describe('decideEnrollment', () => {
  const facts = (
    over: Partial<EnrollmentFacts> = {},
    offerOver: Partial<NonNullable<EnrollmentFacts['offer']>> = {},
  ): EnrollmentFacts => ({
    offer: {
      status: 'active',
      startsAt: NOW - DAY,
      expiresAt: NOW + DAY,
      segments: [],
      budgetTotal: null,
      budgetUsed: 0,
      cashbackAmount: 500,
      merchantFeeAmount: 0,
      ...offerOver,
    },
    existingEnrollmentId: null,
    activeCount: 0,
    maxActiveOffers: 10,
    nowMs: NOW,
    ...over,
  });

  it('adds an eligible offer', () => {
    expect(decideEnrollment(facts())).toEqual({ outcome: 'add' });
  });

  it('a cardholder in the holdout gets offer_not_found, before already_added and offer_unavailable', () => {
    const heldOut = () => true;
    const notFound = { outcome: 'refused', error: 'offer_not_found' };
    expect(decideEnrollment(facts({ heldOut }))).toEqual(notFound);
    expect(decideEnrollment(facts({ heldOut, existingEnrollmentId: 'e1' }))).toEqual(notFound);
    expect(decideEnrollment(facts({ heldOut }, { status: 'paused' }))).toEqual(notFound);
    expect(decideEnrollment(facts({ heldOut: () => false }))).toEqual({ outcome: 'add' });
  });

  it('asks about the holdout only for an offer the institution has', () => {
    const heldOut = jest.fn(() => true);
    decideEnrollment({ ...facts({ heldOut }), offer: null });
    expect(heldOut).not.toHaveBeenCalled();
  });

  it('an enrollment whose activation window is over is replaced by a new add', () => {
    expect(
      decideEnrollment(facts({ existingEnrollmentId: 'co-1', existingExpired: true })),
    ).toEqual({ outcome: 'add', replaces: 'co-1' });
    expect(
      decideEnrollment(
        facts({ existingEnrollmentId: 'co-1', existingExpired: true }, { status: 'paused' }),
      ),
    ).toEqual({ outcome: 'refused', error: 'offer_unavailable' });
  });

  it('unknown or untargeted offer → offer_not_found', () => {
    expect(decideEnrollment({ ...facts(), offer: null })).toEqual({
      outcome: 'refused',
      error: 'offer_not_found',
    });
  });

  it('an existing enrollment wins over every later rule (idempotent)', () => {
    expect(
      decideEnrollment(
        facts(
          { existingEnrollmentId: 'co-1', activeCount: 10 },
          { status: 'paused', segments: ['gold'] },
        ),
      ),
    ).toEqual({
      outcome: 'already_added',
      cardholderOfferId: 'co-1',
    });
  });

  it.each([
    ['paused', { status: 'paused' }],
    ['draft', { status: 'draft' }],
    ['ended', { status: 'ended' }],
    ['not started', { startsAt: NOW + 1 }],
    ['expired', { expiresAt: NOW }],
    ['out of budget', { budgetTotal: 1000, budgetUsed: 600 }],
  ])('%s → offer_unavailable', (_, over) => {
    expect(decideEnrollment(facts({}, over))).toEqual({
      outcome: 'refused',
      error: 'offer_unavailable',
    });
  });

  it('segment-limited offer needs a matching segment', () => {
    expect(decideEnrollment(facts({}, { segments: ['gold'] }))).toEqual({
      outcome: 'refused',
      error: 'segment_not_eligible',
    });
    expect(decideEnrollment(facts({ segment: 'silver' }, { segments: ['gold'] }))).toEqual({
      outcome: 'refused',
      error: 'segment_not_eligible',
    });
    expect(decideEnrollment(facts({ segment: 'gold' }, { segments: ['gold'] }))).toEqual({
      outcome: 'add',
    });
  });

  it('max active offers: refused at the maximum, allowed below it', () => {
    expect(decideEnrollment(facts({ activeCount: 10 }))).toEqual({
      outcome: 'refused',
      error: 'max_active_offers',
    });
    expect(decideEnrollment(facts({ activeCount: 9 }))).toEqual({ outcome: 'add' });
  });

  it('unavailability is reported before segment and cap', () => {
    expect(
      decideEnrollment(facts({ activeCount: 10 }, { status: 'paused', segments: ['gold'] }))
        .outcome,
    ).toBe('refused');
    expect(
      decideEnrollment(facts({ activeCount: 10 }, { status: 'paused', segments: ['gold'] })),
    ).toMatchObject({ error: 'offer_unavailable' });
    expect(decideEnrollment(facts({ activeCount: 10 }, { segments: ['gold'] }))).toMatchObject({
      error: 'segment_not_eligible',
    });
  });
});
