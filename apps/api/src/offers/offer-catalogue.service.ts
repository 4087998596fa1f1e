import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import {
  Audience,
  FeedOffer,
  Goal,
  goalOf,
  liveForSegment,
  readsHistory,
  SortOrder,
  merchantNameKey,
  QualificationTerms,
  qualificationTerms,
  sortForProgram,
  toMajor,
} from '@app/domain';
import { CatalogueRow, OfferFeedRepository } from './offer-feed.repository';

/** A live offer held in memory, with the parts of its feed item that never change precomputed. */
export interface CatalogueOffer extends FeedOffer {
  /** null: offered to every institution; else the institutions it is targeted at. */
  targets: ReadonlySet<string> | null;
  rewardType: string;
  cashbackPercent: number | null;
  minSpendMajor: number;
  cashbackMajor: number;
  startsAtIso: string;
  expiresAtIso: string;
  /** The offer's terms as feed items show them (null: no rules). */
  terms: QualificationTerms | null;
  /** Qualification rules the feed applies per cardholder (absent = none). */
  audience?: Audience;
  lookbackDays?: number;
  activationDays?: number;
  /** Goal offers: the goal (target in minor units for cumulative_spend); absent = none. */
  goal?: Goal;
  /** Holdout share in basis points (0 = none). */
  holdoutBps: number;
}

/**
 * The offers of one view live at an instant and passing one segment rule, in the view's order:
 * the same for every cardholder until `validUntil` (the next start or expiry).
 */
export interface LiveOffers {
  offers: readonly CatalogueOffer[];
  byId: ReadonlyMap<string, CatalogueOffer>;
  /** Those of `offers` with an audience rule that reads the cardholder's purchases. */
  readingHistory: readonly CatalogueOffer[];
  /** Those of `offers` with a holdout: each cardholder is checked against them (docs/lift.md). */
  withHoldout: readonly CatalogueOffer[];
  computedAt: number;
  validUntil: number;
}

interface Snapshot {
  version: bigint;
  loadedAt: number;
  offers: CatalogueOffer[];
  /** Per institution and sort order: the offers it may see, in the program's order. */
  views: Map<string, CatalogueOffer[]>;
  /**
   * Per institution, then per sort order and segment: the live offers of that view (see
   * LiveOffers). Bounded per institution, so one that cycles through many segments evicts only its
   * own lists.
   */
  live: Map<string, Map<string, LiveOffers>>;
}

/**
 * The version is bumped at commit time by a deferred trigger, a moment before the committed rows
 * are visible to other sessions. A reload prompted by a new version could fall in that moment and
 * read the rows as they were; so each such reload is confirmed by one more, in the background,
 * this long after it.
 */
export const CONFIRM_AFTER_MS = 250;
/** Backstop: reload in the background when the catalogue is older than this, changed or not. */
export const MAX_AGE_MS = 60_000;
/** Bound on memoized per-institution views (each is an array of references). */
const MAX_VIEWS = 2_000;
/**
 * Bound on memoized live lists per institution (segments are the caller's codes: any number); the
 * institutions themselves are the service's authenticated tenants.
 */
export const MAX_LIVE_PER_INSTITUTION = 2_000;

/**
 * The live offers (status active, not expired, budget left for one more redemption) with their
 * merchant and targeting, held in memory so that a feed request costs one small indexed query
 * for the cardholder's own rows and an in-memory pass over the offers.
 *
 * Freshness: every feed request reads `offer_catalogue_version` (a sequence that triggers bump
 * whenever an offer, its targeting or its merchant changes, or an offer's budget crosses the
 * one-more-redemption line) in the same round trip as its other reads. A version newer than the
 * one loaded makes the request wait for a reload, so a change is visible to the next request
 * after its commit. Time (starts_at/expires_at): the live offers of a view and segment are kept
 * until the next start or expiry of one of the view's offers (validUntil), then computed again.
 */
@Injectable()
export class OfferCatalogue implements OnApplicationShutdown {
  private readonly logger = new Logger(OfferCatalogue.name);
  private snapshot: Snapshot | null = null;
  private loading: Promise<void> | null = null;
  private confirmTimer: NodeJS.Timeout | null = null;

  constructor(private readonly repo: OfferFeedRepository) {}

  onApplicationShutdown(): void {
    if (this.confirmTimer) clearTimeout(this.confirmTimer);
    this.confirmTimer = null;
  }

  /** The loaded catalogue, at `observedVersion` or later. */
  private async current(observedVersion: bigint): Promise<Snapshot> {
    while (!this.snapshot || this.snapshot.version < observedVersion) {
      await this.reload(observedVersion);
      this.scheduleConfirmation();
    }
    const snap = this.snapshot;
    if (Date.now() - snap.loadedAt > MAX_AGE_MS) this.refreshInBackground();
    return snap;
  }

  /**
   * The offers of `view` (institution, sort order) live at `nowMs` and passing the segment rule
   * (liveForSegment: the feed's part that is the same for every cardholder), kept per catalogue
   * version and segment until the next start or expiry of an offer.
   */
  async live(
    institutionId: string,
    order: SortOrder,
    observedVersion: bigint,
    segment: string | undefined,
    nowMs: number,
  ): Promise<LiveOffers> {
    const snap = await this.current(observedVersion);
    const view = viewOf(snap, institutionId, order);
    let lists = snap.live.get(institutionId);
    if (!lists) snap.live.set(institutionId, (lists = new Map()));
    const key = `${order}|${segment === undefined ? '' : `=${segment}`}`;
    const cached = lists.get(key);
    if (cached && cached.computedAt <= nowMs && nowMs < cached.validUntil) return cached;
    const { offers, validUntil } = liveForSegment(view, nowMs, segment);
    const live: LiveOffers = {
      offers,
      byId: new Map(offers.map((o) => [o.id, o])),
      readingHistory: offers.filter((o) => readsHistory(o.audience)),
      withHoldout: offers.filter((o) => o.holdoutBps > 0),
      computedAt: nowMs,
      validUntil,
    };
    if (lists.size >= MAX_LIVE_PER_INSTITUTION) lists.clear();
    lists.set(key, live);
    return live;
  }

  private scheduleConfirmation(): void {
    if (this.confirmTimer) return;
    this.confirmTimer = setTimeout(() => {
      this.confirmTimer = null;
      this.refreshInBackground();
    }, CONFIRM_AFTER_MS);
    this.confirmTimer.unref();
  }

  /** Reloads at the current version while requests keep being answered from the loaded catalogue. */
  private refreshInBackground(): void {
    if (this.loading || !this.snapshot) return;
    void this.reload(this.snapshot.version).catch((e: Error) =>
      this.logger.warn({ err: e.message }, 'offer catalogue refresh failed'),
    );
  }

  /** One load at a time; callers that need a newer version than the one loading wait and retry. */
  private reload(version: bigint): Promise<void> {
    if (!this.loading) {
      this.loading = this.load(version).finally(() => (this.loading = null));
    }
    return this.loading;
  }

  private async load(version: bigint): Promise<void> {
    const started = Date.now();
    const rows = await this.repo.liveOffers();
    const offers = rows.map(toCatalogueOffer);
    const previous = this.snapshot?.version ?? -1n;
    this.snapshot = {
      version: version > previous ? version : previous,
      loadedAt: started,
      offers,
      views: new Map(),
      live: new Map(),
    };
    this.logger.debug(
      { offers: offers.length, ms: Date.now() - started },
      'offer catalogue loaded',
    );
  }
}

/** The offers an institution may see, in its program's order (memoized in the snapshot). */
function viewOf(snap: Snapshot, institutionId: string, order: SortOrder): CatalogueOffer[] {
  const key = `${institutionId}|${order}`;
  let view = snap.views.get(key);
  if (!view) {
    view = sortForProgram(
      snap.offers.filter((o) => o.targets === null || o.targets.has(institutionId)),
      order,
    );
    if (snap.views.size >= MAX_VIEWS) snap.views.clear();
    snap.views.set(key, view);
  }
  return view;
}

function toCatalogueOffer(r: CatalogueRow): CatalogueOffer {
  const c = r.currency;
  const cashbackAmount = Number(r.cashback_amount);
  return {
    id: r.id,
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    merchantNameKey: merchantNameKey(r.merchant_name),
    category: r.category,
    translations: r.translations,
    cashbackAmount,
    currency: c,
    startsAt: r.starts_at.getTime(),
    expiresAt: r.expires_at.getTime(),
    segments: r.segments,
    maxRedemptionsPerCardholder: r.max_redemptions_per_cardholder,
    priority: r.priority,
    targets: r.targets ? new Set(r.targets) : null,
    holdoutBps: r.holdout_bps,
    rewardType: r.reward_type,
    cashbackPercent: r.cashback_percent === null ? null : Number(r.cashback_percent),
    minSpendMajor: toMajor(r.min_spend, c),
    cashbackMajor: toMajor(cashbackAmount, c),
    startsAtIso: r.starts_at.toISOString(),
    expiresAtIso: r.expires_at.toISOString(),
    terms: qualificationTerms(r.qualification, c),
    ...(r.qualification?.audience && r.qualification.audience !== 'all'
      ? { audience: r.qualification.audience, lookbackDays: r.qualification.lookback_days }
      : {}),
    ...(r.qualification?.activation_days !== undefined
      ? { activationDays: r.qualification.activation_days }
      : {}),
    ...(r.goal_type ? { goal: goalOf(r.goal_type, r.goal_target) } : {}),
  };
}
