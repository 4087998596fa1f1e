import type { OfferTerms } from './matching';

/**
 * Offer versions and maker–checker (docs/offers.md, Versions and approval): which edits wait for
 * a second operator, who may approve, what changed between two versions, and which version's
 * terms judge a purchase made at a given time. Pure rules; the admin service and matching use them.
 */

/** `required`: named operators' offers and money edits wait for an approver; `off`: they apply at once. */
export const OFFER_APPROVAL_MODES = ['required', 'off'] as const;
export type OfferApprovalMode = (typeof OFFER_APPROVAL_MODES)[number];

/** The default: four eyes in production, today's immediate edits anywhere else. */
export function defaultOfferApproval(nodeEnv: string): OfferApprovalMode {
  return nodeEnv === 'production' ? 'required' : 'off';
}

/**
 * A version's life: `draft` (being written), `in_review` (submitted), `approved` (the live
 * version), `superseded` (was live, replaced by a later approval). A rejection sends an
 * `in_review` version back to `draft`.
 */
export const OFFER_VERSION_STATUSES = ['draft', 'in_review', 'approved', 'superseded'] as const;
export type OfferVersionStatus = (typeof OFFER_VERSION_STATUSES)[number];

/**
 * Fields of a live offer that change at once (texts, order in the feed, pause and end): they
 * change no amount paid. Every other field (reward, caps, budget, window, rules, qualification,
 * goal, targeting, holdout) is a money edit: it makes a pending version that waits for approval.
 * `currency` and `merchant_id` never change.
 */
export const IMMEDIATE_OFFER_FIELDS = ['translations', 'priority', 'status'] as const;

/** Splits a change (the fields sent) into the part that applies at once and the money part. */
export function splitOfferChange<T extends Record<string, unknown>>(
  change: T,
): { immediate: Partial<T>; money: Partial<T> } {
  const immediate: Partial<T> = {};
  const money: Partial<T> = {};
  for (const [k, v] of Object.entries(change) as [keyof T & string, unknown][]) {
    if (v === undefined) continue;
    const side = (IMMEDIATE_OFFER_FIELDS as readonly string[]).includes(k) ? immediate : money;
    side[k] = v as T[typeof k];
  }
  return { immediate, money };
}

/** One field's change between two versions, in the API's words (major units). */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/**
 * What changed from `before` (null: nothing before, the first version) to `after`, field by
 * field in `after`'s key order; values compared as JSON (objects key-order independent).
 */
export function versionChanges(
  before: Record<string, unknown> | null,
  after: Record<string, unknown>,
): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, to] of Object.entries(after)) {
    const from = before ? (before[field] ?? null) : null;
    if (before && sameJson(from, to ?? null)) continue;
    if (!before && (to === null || to === undefined)) continue;
    out.push({ field, from, to: to ?? null });
  }
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

/**
 * Four eyes: an operator who changed the version since its last approval (created it or edited
 * it) may not approve it. The break-glass principal is exempt (and audited).
 */
export function approvalRefusal(
  approver: { type: 'operator'; id: string } | { type: 'break_glass' },
  editors: readonly string[],
): 'same_operator' | null {
  if (approver.type === 'break_glass') return null;
  return editors.includes(approver.id) ? 'same_operator' : null;
}

/**
 * The terms a version sets for each purchase it judges (minor units). Caps that span purchases
 * (budget_total, max_redemptions_per_cardholder) and the holdout are read from the live version:
 * they bound totals, not one purchase (and the holdout cannot change once live).
 */
export type VersionedTerms = Pick<
  OfferTerms,
  | 'minSpend'
  | 'rewardType'
  | 'cashbackAmount'
  | 'cashbackPercent'
  | 'merchantFeeAmount'
  | 'startsAt'
  | 'expiresAt'
  | 'qualification'
  | 'goal'
>;

/** A version that has been live: from when (null: applies to every purchase, see versionAt). */
export interface LiveVersion {
  /** The approval; null for an edit made when approval was off, which applies retroactively. */
  effectiveFrom: Date | null;
  terms: VersionedTerms;
}

/**
 * The version live at `t`, of `versions` in the order they went live: the last one effective at
 * or before `t` (a version without effectiveFrom counts from the beginning: with approval off an
 * edit applies to every purchase, as before versions existed). A purchase older than every
 * approval is judged by the first version (there were no earlier terms).
 */
export function versionAt<V extends Pick<LiveVersion, 'effectiveFrom'>>(
  versions: readonly V[],
  t: Date,
): V | undefined {
  let best: V | undefined;
  for (const v of versions)
    if (v.effectiveFrom === null || v.effectiveFrom.getTime() <= t.getTime()) best = v;
  return best ?? versions[0];
}

/**
 * The offer as a purchase made at `t` is judged: the live row when its terms were already
 * effective at `t` (`termsFrom` absent or not after `t`: nearly every purchase), else the terms
 * of the version live at `t` (`versions`, which matching reads only for such purchases), on the
 * offer's current state (status, budget used, caps). The one home of "which version applies".
 */
export function termsAt(offer: OfferTerms, t: Date): OfferTerms {
  if (!offer.termsFrom || t.getTime() >= offer.termsFrom.getTime() || !offer.versions?.length)
    return offer;
  const v = versionAt(offer.versions, t);
  if (!v) return offer;
  const { qualification, goal, ...terms } = v.terms;
  const out: OfferTerms = { ...offer, ...terms };
  delete out.qualification;
  delete out.goal;
  delete out.versions;
  return { ...out, ...(qualification ? { qualification } : {}), ...(goal ? { goal } : {}) };
}

/** Whether any purchase at these times needs an older version of an offer whose terms date from `termsFrom`. */
export function needsEarlierTerms(termsFrom: Date | undefined, earliestPurchase: Date): boolean {
  return !!termsFrom && earliestPurchase.getTime() < termsFrom.getTime();
}
