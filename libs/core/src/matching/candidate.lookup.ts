import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  compositeKey,
  latestEarlierPurchases,
  MatchingEnrollment,
  OfferTerms,
  readsHistory,
} from '@app/domain';
import { ClaimedRow, MatchingRepository } from './matching.repository';
import { toOfferTerms } from './offer-row';
import { VisibleOffersRepository } from './visible-offers.repository';

/** Candidate enrollments (id, offer) per purchaseKey. */
export type Candidates = Map<string, { id: string; offerId: string }[]>;

/** The cardholder and merchant of a resolved purchase: its candidates and history are theirs. */
export const purchaseKey = (p: {
  institution_id: string;
  cardholder_token: string;
  merchant_id: string | null;
}): string => compositeKey(p.institution_id, p.cardholder_token, p.merchant_id!);

/**
 * What allocation reads about the chunk's resolved purchases, one statement each for the chunk:
 * the cardholders' candidate enrollments at the purchases' merchants, and (audiences) the latest
 * earlier purchase at the merchant. Explaining, the offers the cardholder could see beside them.
 */
@Injectable()
export class CandidateLookup {
  constructor(
    private readonly repo: MatchingRepository,
    private readonly visibleOffers: VisibleOffersRepository,
  ) {}

  /** Active enrollments per (institution, cardholder, merchant) of the resolved purchases. */
  async candidates(m: EntityManager, purchases: ClaimedRow[]): Promise<Candidates> {
    const keys = new Map<string, ClaimedRow>();
    for (const p of purchases) keys.set(purchaseKey(p), p);
    if (!keys.size) return new Map();
    const rows = await this.repo.candidateEnrollments(
      m,
      [...keys.values()].map((p) => ({
        institution_id: p.institution_id,
        cardholder_token: p.cardholder_token,
        merchant_id: p.merchant_id!,
      })),
    );
    const out: Candidates = new Map();
    for (const r of rows) {
      const k = purchaseKey(r);
      const arr = out.get(k) ?? [];
      arr.push({ id: r.id, offerId: r.offer_id });
      out.set(k, arr);
    }
    return out;
  }

  /**
   * Explaining (simulate, and matching while its report is listened to): per purchase, what else
   * the cardholder could see at the merchant (SimulationRepository's rule: the offers of the
   * merchant offered to the institution, and its enrollments there in any status but expired; an
   * unresolved merchant: its active enrollments), beyond the candidates. None of them can win (not
   * enrolled, or not active); they are read, never locked.
   */
  async visible(
    m: EntityManager,
    purchases: ClaimedRow[],
    candidates: Candidates,
  ): Promise<Visible> {
    const out: Visible = {
      offers: new Map(),
      enrollments: new Map(),
      enrollmentsOf: new Map(),
      unenrolled: new Map(),
    };
    for (const p of purchases) {
      const known = new Set(
        (p.merchant_id ? (candidates.get(purchaseKey(p)) ?? []) : []).map((c) => c.id),
      );
      const rows = await this.visibleOffers.offersToEvaluate(
        m,
        p.institution_id,
        p.cardholder_token,
        p.merchant_id,
        MAX_EXPLAINED,
      );
      for (const r of rows) {
        out.offers.set(r.id, toOfferTerms(r));
        if (!r.enrollment_id) {
          out.unenrolled.set(p.id, [...(out.unenrolled.get(p.id) ?? []), r.id]);
          continue;
        }
        if (known.has(r.enrollment_id)) continue;
        out.enrollments.set(r.enrollment_id, {
          id: r.enrollment_id,
          offerId: r.id,
          status: r.enrollment_status!,
          redemptionCount: r.redemption_count!,
          addedAt: r.added_at!,
          goal: {
            round: r.goal_round ?? 1,
            progress: Number(r.goal_progress ?? 0),
            spend: Number(r.goal_spend ?? 0),
          },
        });
        out.enrollmentsOf.set(p.id, [...(out.enrollmentsOf.get(p.id) ?? []), r.enrollment_id]);
      }
    }
    return out;
  }

  /**
   * Audiences: the latest earlier purchase at the merchant of each resolved purchase evaluated
   * against an offer with a `new` or `lapsed` audience (one statement for the chunk; none when no
   * such offer), combined with the earlier purchases of the same cardholder and merchant in this
   * chunk (latestEarlierPurchases).
   */
  async history(
    m: EntityManager,
    resolved: ClaimedRow[],
    offerIdsOf: (p: ClaimedRow) => string[],
    offers: ReadonlyMap<string, OfferTerms>,
  ): Promise<Map<string, Date | null>> {
    const needed = resolved.filter((p) =>
      offerIdsOf(p).some((id) => readsHistory(offers.get(id)?.qualification?.audience)),
    );
    if (!needed.length) return new Map();
    const stored = await this.repo.lastPurchasesBefore(
      m,
      needed.map((p) => ({
        id: p.id,
        institution_id: p.institution_id,
        cardholder_token: p.cardholder_token,
        merchant_id: p.merchant_id!,
        transacted_at: p.transacted_at,
      })),
    );
    return latestEarlierPurchases(
      needed,
      resolved,
      purchaseKey,
      new Map(stored.map((r) => [r.id, r.last])),
    );
  }
}

/** At most this many offers explained per purchase beyond its candidates (simulate's limit). */
export const MAX_EXPLAINED = 100;

/** What explaining adds to a run: offers and enrollments evaluated that can never win. */
export interface Visible {
  offers: Map<string, OfferTerms>;
  enrollments: Map<string, MatchingEnrollment>;
  /** Per purchase id: enrollments evaluated beside its candidates (inactive, or another merchant's). */
  enrollmentsOf: Map<string, string[]>;
  /** Per purchase id: offers evaluated without an enrollment (not_enrolled). */
  unenrolled: Map<string, string[]>;
}
