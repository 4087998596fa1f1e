/**
 * Offer feed and enrollment rules (docs/offers.md), without I/O: eligibility, the program's
 * sort orders, the feed limit, locale fallback, personalization (affinity tiers and reasons) and
 * the decision of an add. The api service feeds these functions rows and request values; every
 * rule that can be stated without a database lives here and is unit-tested here.
 */
import { hasBudgetForOneMore } from './budget';
import { toMajor } from './money';

/** The languages a program may offer (program.supported_locales) and the feed answers in. */
export const LOCALES = ['en', 'es', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];
/** A program's feed orders (program.sort_order); `featured` is the default. */
export const SORT_ORDERS = ['featured', 'ending_soon', 'highest_cashback', 'newest'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** Bounds of the `limit` query parameter (published: 1–100); the program's widget_feed_limit caps it further. */
export const FEED_LIMIT_MIN = 1;
export const FEED_LIMIT_MAX = 100;

export interface OfferTranslation {
  title: string;
  description?: string;
}

/** What the feed needs to know of an offer. Amounts are minor units; instants are epoch ms. */
export interface FeedOffer {
  id: string;
  merchantId: string;
  merchantName: string;
  /** merchantNameKey(merchantName), when precomputed (hint matching is then a set lookup). */
  merchantNameKey?: string;
  /** The merchant's category code (lowercase, e.g. `groceries`). */
  category: string;
  translations: Readonly<Record<string, OfferTranslation>>;
  cashbackAmount: number;
  currency: string;
  startsAt: number;
  expiresAt: number;
  /** Empty = unrestricted. */
  segments: readonly string[];
  maxRedemptionsPerCardholder: number;
  priority: number;
}

/** A cardholder's enrollment in one offer, as far as the feed cares. */
export interface EnrollmentState {
  status: string;
  redemptionCount: number;
}

// ---------------------------------------------------------------------------------------------
// Eligibility
// ---------------------------------------------------------------------------------------------

/** Active now: starts_at ≤ now < expires_at (the status is checked where offers are loaded). */
export function isLiveAt(offer: Pick<FeedOffer, 'startsAt' | 'expiresAt'>, nowMs: number): boolean {
  return offer.startsAt <= nowMs && nowMs < offer.expiresAt;
}

/**
 * Segment rule: an unrestricted offer always qualifies; a restricted one only when the request's
 * segment is one of its segments (exact, case-sensitive match of the caller's code).
 */
export function segmentAllows(
  segments: readonly string[],
  segment: string | undefined | null,
): boolean {
  return segments.length === 0 || (segment != null && segments.includes(segment));
}

/** The cardholder has used this offer up: redeemed to the per-cardholder limit. */
export function redeemedToLimit(
  enrollment: EnrollmentState | undefined,
  maxRedemptionsPerCardholder: number,
): boolean {
  return (
    !!enrollment &&
    (enrollment.status === 'redeemed' || enrollment.redemptionCount >= maxRedemptionsPerCardholder)
  );
}

/**
 * What the feed shows is, in the program's order, the offers live now that pass the segment rule
 * and that the cardholder has not redeemed to the limit (targeting, status and budget are applied
 * when the catalogue is loaded). This is its part that is the same for every cardholder: the
 * offers live at `nowMs` that pass the segment rule, in the given order, and the instant until
 * which that list holds (the next start or expiry of any offer; Infinity when none is ahead). A
 * caller may keep the list for every request with the same segment at an instant in
 * [nowMs, validUntil).
 */
export function liveForSegment<T extends FeedOffer>(
  ordered: readonly T[],
  nowMs: number,
  segment: string | undefined | null,
): { offers: T[]; validUntil: number } {
  const offers: T[] = [];
  let validUntil = Infinity;
  for (const o of ordered) {
    if (o.startsAt > nowMs) validUntil = Math.min(validUntil, o.startsAt);
    else if (o.expiresAt > nowMs) validUntil = Math.min(validUntil, o.expiresAt);
    if (isLiveAt(o, nowMs) && segmentAllows(o.segments, segment)) offers.push(o);
  }
  return { offers, validUntil };
}

/**
 * The part of the feed's selection that depends on the cardholder: the ids, among `offers` (by
 * id), of those the cardholder has redeemed to the limit. Walks the enrollments, not the offers.
 */
export function redeemedOfferIds(
  offers: ReadonlyMap<string, Pick<FeedOffer, 'maxRedemptionsPerCardholder'>>,
  enrollments: ReadonlyMap<string, EnrollmentState>,
): Set<string> {
  const out = new Set<string>();
  for (const [id, e] of enrollments) {
    const o = offers.get(id);
    if (o && redeemedToLimit(e, o.maxRedemptionsPerCardholder)) out.add(id);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Program sort order
// ---------------------------------------------------------------------------------------------

const byId = (a: FeedOffer, b: FeedOffer) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The program's sort orders, each ending with the offer id so that the order is total and the
 * same on every call:
 * - featured: priority descending, then newest (starts_at descending)
 * - ending_soon: expires_at ascending
 * - highest_cashback: cashback_amount descending, compared in major units (the most a cardholder
 *   can get: the fixed reward or the cap of a percent reward)
 * - newest: starts_at descending
 */
export function compareForSort(order: SortOrder): (a: FeedOffer, b: FeedOffer) => number {
  switch (order) {
    case 'featured':
      return (a, b) => b.priority - a.priority || b.startsAt - a.startsAt || byId(a, b);
    case 'ending_soon':
      return (a, b) => a.expiresAt - b.expiresAt || byId(a, b);
    case 'highest_cashback':
      return (a, b) =>
        toMajor(b.cashbackAmount, b.currency) - toMajor(a.cashbackAmount, a.currency) || byId(a, b);
    case 'newest':
      return (a, b) => b.startsAt - a.startsAt || byId(a, b);
  }
}

export function sortForProgram<T extends FeedOffer>(offers: readonly T[], order: SortOrder): T[] {
  return [...offers].sort(compareForSort(order));
}

// ---------------------------------------------------------------------------------------------
// Limit and locale
// ---------------------------------------------------------------------------------------------

/** `limit` (already validated to 1–100) capped by the widget's limit; absent = the widget's limit. */
export function effectiveFeedLimit(requested: number | undefined, widgetFeedLimit: number): number {
  return requested === undefined ? widgetFeedLimit : Math.min(requested, widgetFeedLimit);
}

/** A well-formed language tag (BCP 47 shape), whatever the language. */
export const LOCALE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/;

/**
 * Maps a requested tag onto the service's locales, forgivingly: exact tags in any case
 * (`pt-br` → `pt-BR`), then the language alone (`es-MX` → `es`, `en-GB` → `en`, `pt` and
 * `pt-PT` → `pt-BR`, the one Portuguese the service has). Anything else → null.
 */
export function normalizeLocale(tag: string | undefined | null): Locale | null {
  if (!tag) return null;
  const lower = tag.toLowerCase();
  const exact = LOCALES.find((l) => l.toLowerCase() === lower);
  if (exact) return exact;
  const language = lower.split('-')[0];
  if (language === 'en') return 'en';
  if (language === 'es') return 'es';
  if (language === 'pt') return 'pt-BR';
  return null;
}

/**
 * Published rule: the requested language if the program offers it, else the program's first supported
 * language (its default).
 */
export function resolveLocale(
  requested: string | undefined | null,
  supported: readonly string[],
): string {
  const wanted = normalizeLocale(requested);
  return wanted && supported.includes(wanted) ? wanted : supported[0];
}

/**
 * Title and description in `locale`; a missing translation falls back to the program's first
 * locale, then to English, then to whatever translation the offer has (an offer always has one).
 */
export function localize(
  translations: Readonly<Record<string, OfferTranslation>>,
  locale: string,
  programDefault: string,
): { title: string; description: string } {
  const t =
    translations[locale] ??
    translations[programDefault] ??
    translations.en ??
    Object.values(translations)[0];
  return { title: t?.title ?? '', description: t?.description ?? '' };
}

// ---------------------------------------------------------------------------------------------
// Personalization
// ---------------------------------------------------------------------------------------------

/** Reason codes in precedence order: a request hint outranks history, which outranks popularity. */
export const REASON_CODES = [
  'preferred_merchant',
  'preferred_category',
  'shopped_here',
  'category_affinity',
  'popular',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** The most items one hint list may carry; more is a validation error. */
export const MAX_HINTS = 50;
/** The longest one hint may be. */
export const MAX_HINT_LENGTH = 200;

/** `a, b,,c ` → `['a', 'b', 'c']` (trimmed, empty items dropped, duplicates dropped). */
export function parseHintList(csv: string | undefined | null): string[] {
  if (!csv) return [];
  const seen = new Set<string>();
  for (const raw of csv.split(',')) {
    const v = raw.trim();
    if (v) seen.add(v);
  }
  return [...seen];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How merchant names compare with name hints: trimmed, inner spaces collapsed, case-folded. */
export function merchantNameKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Request hints, prepared for matching: merchant ids, merchant names (case-folded), categories. */
export interface Hints {
  merchantIds: ReadonlySet<string>;
  merchantNames: ReadonlySet<string>;
  categories: ReadonlySet<string>;
}

/** prefer_merchants holds merchant ids or names; prefer_categories holds category codes. */
export function prepareHints(
  preferMerchants: readonly string[],
  preferCategories: readonly string[],
): Hints {
  const merchantIds = new Set<string>();
  const merchantNames = new Set<string>();
  for (const m of preferMerchants) {
    if (UUID.test(m)) merchantIds.add(m.toLowerCase());
    merchantNames.add(merchantNameKey(m));
  }
  return {
    merchantIds,
    merchantNames,
    categories: new Set(preferCategories.map((c) => c.trim().toLowerCase())),
  };
}

/** What is known about the cardholder and the institution's cardholders, for ranking. */
export interface AffinitySignals {
  hints: Hints;
  /** The cardholder's past purchases per merchant id. */
  merchantHistory: ReadonlyMap<string, number>;
  /** The cardholder's past purchases per merchant category. */
  categoryHistory: ReadonlyMap<string, number>;
  /** Enrollments per offer id across the institution's cardholders. */
  popularity: ReadonlyMap<string, number>;
}

export interface Affinity {
  code: ReasonCode;
  /** Position of the code in REASON_CODES: lower ranks first. */
  tier: number;
  /** Within a tier, higher ranks first (purchase counts, then popularity). */
  strength: number;
}

/**
 * The reason an offer suits the cardholder, by precedence: the merchant is among the request's
 * preferred merchants; its category among the preferred categories; the cardholder has bought
 * at the merchant; in the merchant's category; otherwise it is ranked by popularity.
 */
export function affinityOf(offer: FeedOffer, s: AffinitySignals): Affinity {
  const tier = tierOf(offer, s);
  return { code: REASON_CODES[tier], tier, strength: strengthOf(offer, s, tier) };
}

const POPULAR_TIER = REASON_CODES.indexOf('popular');
const clamp = (n: number) => Math.min(n, 0xfffff);

/** affinityOf's tier (the position of its code in REASON_CODES), without allocating. */
function tierOf(offer: FeedOffer, s: AffinitySignals): number {
  const names = s.hints.merchantNames;
  if (
    s.hints.merchantIds.has(offer.merchantId) ||
    (names.size > 0 && names.has(offer.merchantNameKey ?? merchantNameKey(offer.merchantName)))
  )
    return 0; // preferred_merchant
  if (s.hints.categories.has(offer.category)) return 1; // preferred_category
  if ((s.merchantHistory.get(offer.merchantId) ?? 0) > 0) return 2; // shopped_here
  if ((s.categoryHistory.get(offer.category) ?? 0) > 0) return 3; // category_affinity
  return POPULAR_TIER;
}

/**
 * affinityOf's strength: the cardholder's own history first, then popularity; each packed so
 * that a higher tier-relevant signal always dominates (counts are far below 2^20 in practice and
 * clamped).
 */
function strengthOf(offer: FeedOffer, s: AffinitySignals, tier: number): number {
  if (tier === POPULAR_TIER) return clamp(s.popularity.get(offer.id) ?? 0);
  const atMerchant = s.merchantHistory.get(offer.merchantId) ?? 0;
  const inCategory = s.categoryHistory.get(offer.category) ?? 0;
  return clamp(atMerchant) * 2 ** 20 + clamp(inCategory);
}

/**
 * Ranks eligible offers (given in the program's order) by affinity: tier first, then strength;
 * equal affinity keeps the program's order (the sort is stable). With `limit`, only the first
 * `limit` of that same ranking (one pass that keeps the best so far, instead of sorting all);
 * offers whose id is in `except` are left out, as if they were not in `eligible`.
 */
export function rankByAffinity<T extends FeedOffer>(
  eligible: readonly T[],
  s: AffinitySignals,
  limit = Infinity,
  except?: ReadonlySet<string>,
): { offer: T; affinity: Affinity }[] {
  if (limit >= eligible.length) {
    return eligible
      .filter((offer) => !except?.has(offer.id))
      .map((offer) => ({ offer, affinity: affinityOf(offer, s) }))
      .sort(
        (a, b) => a.affinity.tier - b.affinity.tier || b.affinity.strength - a.affinity.strength,
      );
  }
  if (limit <= 0) return [];
  // affinityOf, inlined: a hint set that is empty is not consulted, and popularity only for
  // the `popular` tier.
  const { merchantIds, merchantNames, categories } = s.hints;
  const merchantHints = merchantIds.size > 0 || merchantNames.size > 0;
  const skip = except && except.size > 0 ? except : null;
  // The best `limit` so far, in rank order; a newcomer goes after every kept offer that ranks
  // before it or equal to it (it comes later in the program's order), which keeps the sort stable.
  const kept: { offer: T; tier: number; strength: number }[] = [];
  for (const offer of eligible) {
    if (skip?.has(offer.id)) continue;
    const atMerchant = s.merchantHistory.get(offer.merchantId) ?? 0;
    const inCategory = s.categoryHistory.get(offer.category) ?? 0;
    let tier: number;
    if (
      merchantHints &&
      (merchantIds.has(offer.merchantId) ||
        (merchantNames.size > 0 &&
          merchantNames.has(offer.merchantNameKey ?? merchantNameKey(offer.merchantName))))
    )
      tier = 0;
    else if (categories.size > 0 && categories.has(offer.category)) tier = 1;
    else if (atMerchant > 0) tier = 2;
    else if (inCategory > 0) tier = 3;
    else tier = POPULAR_TIER;
    const full = kept.length === limit;
    if (full && tier > kept[limit - 1].tier) continue;
    const strength =
      tier === POPULAR_TIER
        ? clamp(s.popularity.get(offer.id) ?? 0)
        : clamp(atMerchant) * 2 ** 20 + clamp(inCategory);
    if (full && tier === kept[limit - 1].tier && strength <= kept[limit - 1].strength) continue;
    let j = kept.length;
    while (
      j > 0 &&
      (kept[j - 1].tier > tier || (kept[j - 1].tier === tier && kept[j - 1].strength < strength))
    )
      j--;
    kept.splice(j, 0, { offer, tier, strength });
    if (kept.length > limit) kept.pop();
  }
  return kept.map(({ offer, tier, strength }) => ({
    offer,
    affinity: { code: REASON_CODES[tier], tier, strength },
  }));
}

const REASON_TEXT: Record<Locale, Record<ReasonCode, (merchant: string) => string>> = {
  en: {
    preferred_merchant: (m) => `${m} is one of your preferred merchants`,
    preferred_category: () => 'Matches a category you prefer',
    shopped_here: (m) => `Because you shop at ${m}`,
    category_affinity: () => 'Similar to places where you shop',
    popular: () => 'A popular offer',
  },
  es: {
    preferred_merchant: (m) => `${m} es uno de tus comercios preferidos`,
    preferred_category: () => 'Coincide con una categoría que prefieres',
    shopped_here: (m) => `Porque compras en ${m}`,
    category_affinity: () => 'Similar a los lugares donde compras',
    popular: () => 'Una oferta popular',
  },
  'pt-BR': {
    preferred_merchant: (m) => `${m} é uma das suas lojas preferidas`,
    preferred_category: () => 'Corresponde a uma categoria que você prefere',
    shopped_here: (m) => `Porque você compra em ${m}`,
    category_affinity: () => 'Parecida com os lugares onde você compra',
    popular: () => 'Uma oferta popular',
  },
};

/** The localized sentence for a reason (English when the locale is not one of the service's). */
export function reasonText(code: ReasonCode, locale: string, merchantName: string): string {
  const table =
    REASON_TEXT[(LOCALES as readonly string[]).includes(locale) ? (locale as Locale) : 'en'];
  return table[code](merchantName);
}

// ---------------------------------------------------------------------------------------------
// Enrollment (POST /offers/{id}/add)
// ---------------------------------------------------------------------------------------------

/** Everything an add decides on, read under the cardholder's lock. */
export interface EnrollmentFacts {
  /** null: no such offer, or one not offered to this institution. */
  offer: {
    status: string;
    startsAt: number;
    expiresAt: number;
    segments: readonly string[];
    budgetTotal: number | null;
    budgetUsed: number;
    cashbackAmount: number;
    merchantFeeAmount: number;
  } | null;
  /**
   * Whether the cardholder is in the offer's holdout (docs/lift.md); asked only for an offer that
   * exists and is offered to the institution, so the HMAC is computed only when it can matter.
   */
  heldOut?: () => boolean;
  /** The cardholder's enrollment in this offer, if any. */
  existingEnrollmentId: string | null;
  /**
   * True when that enrollment's activation window (the offer's activation_days) is over: it no
   * longer counts, and the add starts a new enrollment in its place.
   */
  existingExpired?: boolean;
  /** The cardholder's active offers: enrollment active and offer not expired. */
  activeCount: number;
  maxActiveOffers: number;
  segment?: string | null;
  nowMs: number;
}

export type EnrollmentError =
  'offer_not_found' | 'offer_unavailable' | 'segment_not_eligible' | 'max_active_offers';

export type EnrollmentDecision =
  | { outcome: 'already_added'; cardholderOfferId: string }
  | { outcome: 'add'; replaces?: string }
  | { outcome: 'refused'; error: EnrollmentError };

/**
 * The add, in this order: unknown offer, or the cardholder in its holdout → 404 (the same answer,
 * so a holdout cannot be told from an offer the institution does not have); an existing enrollment → already_added (the add is
 * idempotent: a retry gets the answer of the first call, whatever changed since), unless its
 * activation window is over (then the add is decided like a first one and, when it succeeds,
 * replaces that enrollment with a new one); an offer that
 * is not active, not in its window or out of budget → offer_unavailable; a segment-limited offer
 * without a matching segment → segment_not_eligible; the cardholder at the program's maximum of
 * active offers → max_active_offers; else add.
 */
export function decideEnrollment(f: EnrollmentFacts): EnrollmentDecision {
  const o = f.offer;
  if (!o || f.heldOut?.()) return { outcome: 'refused', error: 'offer_not_found' };
  if (f.existingEnrollmentId && !f.existingExpired)
    return { outcome: 'already_added', cardholderOfferId: f.existingEnrollmentId };
  if (o.status !== 'active' || !isLiveAt(o, f.nowMs) || !hasBudgetForOneMore(o))
    return { outcome: 'refused', error: 'offer_unavailable' };
  if (!segmentAllows(o.segments, f.segment))
    return { outcome: 'refused', error: 'segment_not_eligible' };
  if (f.activeCount >= f.maxActiveOffers) return { outcome: 'refused', error: 'max_active_offers' };
  return f.existingEnrollmentId
    ? { outcome: 'add', replaces: f.existingEnrollmentId }
    : { outcome: 'add' };
}
