import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { HoldoutKeys } from '@app/core';
import { DAY_MS, GroupStatistics, holdoutPercentOf, liftFigures } from '@app/domain';
import { SecurityActivityService } from '../auth/security-activity.service';
import { ApiError } from '../common/api-error';
import { ConcurrencyLimit } from '../common/concurrency-limit';
import { Keyset } from '../common/pagination';
import { HoldoutKeyDto, HoldoutKeyStateDto, LiftReportDto, PortalOfferPageDto } from './lift.dto';
import { GroupRow, hmacPads, LiftOfferRow, LiftRepository } from './lift.repository';

/** The pre-period: this many days before the window. */
export const PRE_PERIOD_DAYS = 90;
/** A report may be answered again for this long (it says when it was computed: as_of). */
export const REUSE_MS = 60_000;
const MAX_CACHED = 1_000;
/**
 * Reports computed at once per api process (each holds a connection per shard for seconds, and
 * more at once would only share the same database cores); the rest wait their turn.
 */
const CONCURRENT_REPORTS = 2;

export const LIFT_METHOD =
  "Intent to treat: every cardholder with a purchase at the institution in the window or the 90 days before it, split into the offer's holdout and the exposed rest; 95% intervals by Newcombe's hybrid score (method 10) for the rate difference and Welch's t for the spend difference (docs/lift.md).";

const HOLDOUT_RULE =
  'u = uint64_be(first 8 bytes of HMAC-SHA256(K, utf8(offer_id, lowercase hyphenated) ‖ utf8(cardholder_token))) mod 10000; the cardholder is held out when u < holdout_percent × 100 (docs/lift.md)';

/**
 * The lift report of an offer (docs/lift.md): one set-based statement per report, the figures by
 * libs/domain, a result reused for up to a minute per (offer, institutions).
 */
@Injectable()
export class LiftService {
  private readonly cache = new Map<string, { at: number; report: Promise<LiftReportDto> }>();
  private readonly computing = new ConcurrencyLimit(CONCURRENT_REPORTS);

  constructor(
    private readonly db: DataSource,
    private readonly repo: LiftRepository,
    private readonly keys: HoldoutKeys,
    private readonly security: SecurityActivityService,
    private readonly config: AppConfig,
  ) {}

  /** The portal's list: the institution's offers that have started, newest first. */
  async offers(
    institutionId: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<PortalOfferPageDto> {
    const keyset = new Keyset(this.config.keys, `portal:offers:${institutionId}`);
    const rows = await this.repo.offersPage(institutionId, keyset.decode(cursor), limit);
    const now = Date.now();
    return keyset.page(rows, limit, (r) => ({
      id: r.id,
      title: r.title ?? '',
      merchant_name: r.merchant_name,
      status: r.status,
      live: r.status === 'active' && r.starts_at.getTime() <= now && now < r.expires_at.getTime(),
      currency: r.currency,
      starts_at: r.starts_at.toISOString(),
      expires_at: r.expires_at.toISOString(),
      holdout_percent: holdoutPercentOf(r.holdout_bps),
    }));
  }

  async holdoutKeyState(institutionId: string): Promise<HoldoutKeyStateDto> {
    const r = await this.repo.reveal(institutionId);
    return {
      revealed: !!r,
      revealed_at: r?.created_at.toISOString() ?? null,
      revealed_by: r?.actor ?? null,
    };
  }

  /**
   * The institution's holdout key, once: the reveal is recorded in the security activity in the
   * same transaction, under a lock, so a second reveal (even a concurrent one) is refused.
   */
  revealHoldoutKey(
    institutionId: string,
    actor: { label: string; ip: string | null },
  ): Promise<HoldoutKeyDto> {
    return this.db.transaction(async (m) => {
      const before = await this.repo.lockedReveal(institutionId, m);
      if (before)
        throw ApiError.conflict(
          'holdout_key_revealed',
          `The holdout key was revealed on ${before.created_at.toISOString()} by ${before.actor}; it is shown only once.`,
        );
      await this.security.record(
        { institutionId, type: 'holdout_key.revealed', actor: actor.label, ip: actor.ip },
        m,
      );
      return {
        key_hex: this.keys.of(institutionId).toString('hex'),
        rule: HOLDOUT_RULE,
        revealed_at: new Date().toISOString(),
      };
    });
  }

  /**
   * `institutionId`: one institution's cardholders (404 when the offer is not offered to it);
   * null: every institution the offer is offered to, cardholders as (institution, token) pairs.
   */
  async report(offerId: string, institutionId: string | null): Promise<LiftReportDto> {
    const key = `${offerId}|${institutionId ?? '*'}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < REUSE_MS) return hit.report;
    const report = this.computing.run(() => this.compute(offerId, institutionId, new Date()));
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(key, { at: now, report });
    report.catch(() => this.cache.delete(key));
    return report;
  }

  private async compute(
    offerId: string,
    institutionId: string | null,
    asOf: Date,
  ): Promise<LiftReportDto> {
    const offer = await this.repo.offer(offerId);
    if (!offer || (institutionId !== null && !offer.institution_ids.includes(institutionId)))
      throw ApiError.notFound(
        'offer_not_found',
        'No such offer, or it is not offered to this institution.',
      );
    const institutions = institutionId === null ? offer.institution_ids : [institutionId];
    const window = windowOf(offer, asOf);
    const [rows, rewards] = await Promise.all([
      this.repo.groups(
        offer,
        institutions.map((id) => hmacPads(id, this.keys.of(id))),
        window,
      ),
      this.repo.rewards(offer.id, institutions, window),
    ]);
    const figures = liftFigures(
      statistics(rows.filter((r) => !r.holdout)),
      statistics(rows.filter((r) => r.holdout)),
      {
        institutionPayoutMinor: BigInt(rewards.payout),
        merchantFundedMinor: BigInt(rewards.funded),
      },
      offer.currency,
    );
    return {
      offer_id: offer.id,
      institution_id: institutionId,
      currency: offer.currency,
      as_of: asOf.toISOString(),
      window: { from: window.from.toISOString(), to: window.to.toISOString() },
      pre_period: { from: window.preFrom.toISOString(), to: window.from.toISOString() },
      holdout_percent: holdoutPercentOf(offer.holdout_bps),
      ...figures,
      method: LIFT_METHOD,
    };
  }
}

/** [starts_at, min(as_of, expires_at)) (empty before the start) and the 90 days before it. */
export function windowOf(offer: Pick<LiftOfferRow, 'starts_at' | 'expires_at'>, asOf: Date) {
  const from = offer.starts_at;
  const end = Math.min(asOf.getTime(), offer.expires_at.getTime());
  return {
    preFrom: new Date(from.getTime() - PRE_PERIOD_DAYS * DAY_MS),
    from,
    to: new Date(Math.max(from.getTime(), end)),
  };
}

/** One group's statistics: the sum of its rows (one per shard that has cardholders in it). */
function statistics(rows: GroupRow[]): GroupStatistics {
  return rows.reduce<GroupStatistics>(
    (g, r) => ({
      cardholders: g.cardholders + r.cardholders,
      buyers: g.buyers + r.buyers,
      spendE4: g.spendE4 + BigInt(r.spend_e4),
      spendSquaresE8: g.spendSquaresE8 + BigInt(r.squares_e8),
      preBuyers: g.preBuyers + r.pre_buyers,
      preSpendE4: g.preSpendE4 + BigInt(r.pre_spend_e4),
    }),
    { cardholders: 0, buyers: 0, spendE4: 0n, spendSquaresE8: 0n, preBuyers: 0, preSpendE4: 0n },
  );
}
