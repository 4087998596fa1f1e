import { Injectable } from '@nestjs/common';
import { HoldoutKeys } from '@app/core';
import {
  activationExpired,
  AffinitySignals,
  audienceMatches,
  effectiveFeedLimit,
  EnrollmentState,
  feedProgress,
  inHoldout,
  localize,
  MAX_HINT_LENGTH,
  MAX_HINTS,
  parseHintList,
  prepareHints,
  rankByAffinity,
  PROGRAM_DEFAULTS,
  reasonText,
  redeemedOfferIds,
  resolveLocale,
  toMajor,
} from '@app/domain';
import { ApiError, ErrorDetail } from '../common/api-error';
import { EngagementRecorder } from './engagement-recorder.service';
import { CatalogueOffer, LiveOffers, OfferCatalogue } from './offer-catalogue.service';
import { OfferPopularity } from './offer-popularity.service';
import { FeedOfferDto, FeedQueryDto, FeedResponseDto } from './offers.dto';
import { rejectPii } from '../common/pii';
import { OfferFeedRepository } from './offer-feed.repository';

/** GET /api/v1/offers: the offers a cardholder may see, in the program's order or by affinity. */
@Injectable()
export class OfferFeedService {
  constructor(
    private readonly repo: OfferFeedRepository,
    private readonly catalogue: OfferCatalogue,
    private readonly popularity: OfferPopularity,
    private readonly events: EngagementRecorder,
    private readonly holdoutKeys: HoldoutKeys,
  ) {}

  /**
   * `count: false` (portal previews of the widget) answers the same feed without recording a
   * widget view or impressions.
   */
  async feed(
    institutionId: string,
    q: FeedQueryDto,
    options: { count?: boolean } = {},
  ): Promise<FeedResponseDto> {
    rejectPii({ cardholder_token: q.cardholder_token });
    const personalize = q.personalize === 'true';
    const preferMerchants = hintList('prefer_merchants', q.prefer_merchants);
    const preferCategories = hintList('prefer_categories', q.prefer_categories);

    const row = await this.repo.cardholder(institutionId, q.cardholder_token, personalize);
    const sortOrder = row.sort_order ?? PROGRAM_DEFAULTS.sortOrder;
    const locales = row.supported_locales?.length
      ? row.supported_locales
      : PROGRAM_DEFAULTS.supportedLocales;
    const widgetLimit = row.widget_feed_limit ?? PROGRAM_DEFAULTS.widgetFeedLimit;

    const now = new Date();
    // The live offers of the view for this segment are shared by every cardholder; this
    // cardholder's part is the offers redeemed to the limit and the audience rules.
    const live = await this.catalogue.live(
      institutionId,
      sortOrder,
      BigInt(row.catalogue_version),
      q.segment,
      now.getTime(),
    );
    const enrollments = new Map<string, EnrollmentState>(
      row.enrollments.map(([id, status, n]) => [id, { status, redemptionCount: n }]),
    );
    const excluded = redeemedOfferIds(live.byId, enrollments);
    await this.excludeByAudience(institutionId, q.cardholder_token, live, excluded, now);
    this.excludeHoldouts(institutionId, q.cardholder_token, live, excluded);
    // The eligible offers are the live ones not excluded; only a page of them is walked.
    const total = live.offers.length - excluded.size;
    // An enrollment past its offer's activation window shows as not added (a new add starts a new
    // one). Goal offers show the open round's progress of an added offer (one not added shows 0).
    const addedAt = new Map(row.enrollments.map(([id, , , at]) => [id, new Date(at)]));
    const progressOf = new Map(row.enrollments.map(([id, , , , p]) => [id, Number(p)]));
    const added = {
      has: (o: CatalogueOffer) =>
        addedAt.has(o.id) && !activationExpired(addedAt.get(o.id)!, o.activationDays, now),
    };
    const limit = effectiveFeedLimit(q.limit, widgetLimit);
    const locale = resolveLocale(q.locale, locales);
    const programDefault = locales[0];

    let offers: FeedOfferDto[];
    if (personalize) {
      const merchantHistory = new Map<string, number>();
      const categoryHistory = new Map<string, number>();
      for (const [merchantId, category, n] of row.history ?? []) {
        merchantHistory.set(merchantId, n);
        categoryHistory.set(category, (categoryHistory.get(category) ?? 0) + n);
      }
      const signals: AffinitySignals = {
        hints: prepareHints(preferMerchants, preferCategories),
        merchantHistory,
        categoryHistory,
        popularity: await this.popularity.counts(institutionId),
      };
      offers = rankByAffinity(live.offers, signals, limit, excluded).map(({ offer, affinity }) => ({
        ...item(offer, locale, programDefault, added, progressOf),
        reason: {
          code: affinity.code,
          text: reasonText(affinity.code, locale, offer.merchantName),
        },
      }));
    } else {
      offers = [];
      for (const o of live.offers) {
        if (offers.length === limit) break;
        if (!excluded.has(o.id)) offers.push(item(o, locale, programDefault, added, progressOf));
      }
    }

    if (options.count !== false) {
      this.events.recordFeed(
        institutionId,
        q.cardholder_token,
        offers.map((o) => o.id),
      );
    }
    return { offers, total, personalized: personalize };
  }

  /**
   * Adds to `excluded` the offers whose holdout the cardholder is in (docs/lift.md): absent from
   * the feed and from `total`, and no impression. The HMAC is computed only for holdout offers
   * that passed every other rule; the institution's key is held in memory.
   */
  private excludeHoldouts(
    institutionId: string,
    cardholderToken: string,
    live: LiveOffers,
    excluded: Set<string>,
  ): void {
    if (!live.withHoldout.length) return;
    const buckets = this.holdoutKeys.buckets(institutionId);
    for (const o of live.withHoldout)
      if (!excluded.has(o.id) && inHoldout(buckets, o.id, cardholderToken, o.holdoutBps))
        excluded.add(o.id);
  }

  /**
   * Adds to `excluded` the `new` / `lapsed` offers this cardholder could not be paid for now,
   * judged on the latest purchase at each of their merchants: one indexed query, made only when
   * such offers are among the eligible ones (transaction_cardholder_idx: institution_id,
   * cardholder_token, merchant_id).
   */
  private async excludeByAudience(
    institutionId: string,
    cardholderToken: string,
    live: LiveOffers,
    excluded: Set<string>,
    now: Date,
  ): Promise<void> {
    const ruled = live.readingHistory.filter((o) => !excluded.has(o.id));
    if (!ruled.length) return;
    const merchants = [...new Set(ruled.map((o) => o.merchantId))];
    const rows = await this.repo.lastPurchases(institutionId, cardholderToken, merchants, now);
    const last = new Map(rows.map((r) => [r.merchant_id, r.last]));
    for (const o of ruled) {
      if (
        !audienceMatches(o.audience, o.lookbackDays, now, {
          lastBefore: last.get(o.merchantId) ?? null,
        })
      )
        excluded.add(o.id);
    }
  }
}

function item(
  o: CatalogueOffer,
  locale: string,
  programDefault: string,
  added: { has(o: CatalogueOffer): boolean },
  progress: ReadonlyMap<string, number>,
): FeedOfferDto {
  const isAdded = added.has(o);
  const { title, description } = localize(o.translations, locale, programDefault);
  return {
    id: o.id,
    title,
    description,
    merchant_id: o.merchantId,
    merchant_name: o.merchantName,
    min_spend: o.minSpendMajor,
    cashback_amount: o.cashbackMajor,
    currency: o.currency,
    starts_at: o.startsAtIso,
    expires_at: o.expiresAtIso,
    added: isAdded,
    reward_type: o.rewardType,
    cashback_percent: o.cashbackPercent,
    qualification: o.terms,
    ...(o.goal ? { progress: goalProgress(o, isAdded ? (progress.get(o.id) ?? 0) : 0) } : {}),
  };
}

/** A goal offer's progress as the feed shows it: amounts in major units of the offer currency. */
function goalProgress(o: CatalogueOffer, current: number): FeedOfferDto['progress'] {
  const p = feedProgress(o.goal!, current);
  return p.unit === 'amount'
    ? { ...p, current: toMajor(p.current, o.currency), target: toMajor(p.target, o.currency) }
    : p;
}

/** Parses a hint list, refusing more than MAX_HINTS items or an item longer than MAX_HINT_LENGTH. */
function hintList(field: string, csv: string | undefined): string[] {
  const items = parseHintList(csv);
  const details: ErrorDetail[] = [];
  if (items.length > MAX_HINTS)
    details.push({ field, message: `must list at most ${MAX_HINTS} items` });
  if (items.some((i) => i.length > MAX_HINT_LENGTH))
    details.push({ field, message: `items must be at most ${MAX_HINT_LENGTH} characters` });
  if (details.length) throw ApiError.validation(details);
  return items;
}
