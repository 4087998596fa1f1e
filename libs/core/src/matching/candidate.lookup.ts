import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { compositeKey, latestEarlierPurchases, OfferTerms, readsHistory } from '@app/domain';
import { ClaimedRow, MatchingRepository } from './matching.repository';

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
 * earlier purchase at the merchant.
 */
@Injectable()
export class CandidateLookup {
  constructor(private readonly repo: MatchingRepository) {}

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
   * Audiences: the latest earlier purchase at the merchant of each purchase that has a candidate
   * offer with a `new` or `lapsed` audience (one statement for the chunk; none when no candidate
   * has one), combined with the earlier purchases of the same cardholder and merchant in this
   * chunk (latestEarlierPurchases).
   */
  async history(
    m: EntityManager,
    resolved: ClaimedRow[],
    candidates: Candidates,
    offers: Map<string, OfferTerms>,
  ): Promise<Map<string, Date | null>> {
    const needed = resolved.filter((p) =>
      (candidates.get(purchaseKey(p)) ?? []).some((c) =>
        readsHistory(offers.get(c.offerId)?.qualification?.audience),
      ),
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
