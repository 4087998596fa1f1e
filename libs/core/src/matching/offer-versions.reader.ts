import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { prepared } from '@app/db';
import {
  fromStoredQualification,
  goalOf,
  LiveVersion,
  needsEarlierTerms,
  OfferTerms,
  StoredQualification,
} from '@app/domain';

/**
 * Earlier terms of offers (offer_version), for purchases made before their live terms took
 * effect (offer-versions.ts termsAt). Versions are rare and late purchases rarer: nothing is read
 * unless some offer's terms_from is after the earliest purchase of the run, and then one
 * statement for all such offers (offer_version_pkey).
 */
@Injectable()
export class OfferVersionsReader {
  async addEarlierTerms(
    m: EntityManager,
    offers: Map<string, OfferTerms>,
    purchases: readonly { transacted_at: Date }[],
  ): Promise<void> {
    if (!purchases.length) return;
    let earliest = purchases[0].transacted_at;
    for (const p of purchases) if (p.transacted_at < earliest) earliest = p.transacted_at;
    const ids = [...offers.values()]
      .filter((o) => needsEarlierTerms(o.termsFrom, earliest))
      .map((o) => o.id);
    if (!ids.length) return;
    const byOffer = await this.versionsOf(m, ids);
    for (const [id, versions] of byOffer) offers.set(id, { ...offers.get(id)!, versions });
  }

  /** The versions of these offers that have been live, in the order they went live. */
  async versionsOf(m: EntityManager, offerIds: string[]): Promise<Map<string, LiveVersion[]>> {
    const byOffer = new Map<string, LiveVersion[]>();
    if (!offerIds.length) return byOffer;
    const rows: { offer_id: string; effective_from: Date | null; terms: StoredTerms }[] =
      await m.query(
        prepared(`SELECT offer_id, effective_from, terms FROM offer_version
          WHERE offer_id = ANY($1::uuid[]) AND status IN ('approved', 'superseded')
          ORDER BY offer_id, approved_at, number`),
        [offerIds],
      );
    for (const r of rows) {
      const list = byOffer.get(r.offer_id) ?? [];
      list.push({ effectiveFrom: r.effective_from, terms: versionedTerms(r.terms) });
      byOffer.set(r.offer_id, list);
    }
    return byOffer;
  }
}

/** offer_version.terms: the offer's columns as stored (minor units). */
interface StoredTerms {
  min_spend: number;
  reward_type: 'fixed' | 'percent';
  cashback_amount: number;
  cashback_percent: number | null;
  merchant_fee_amount: number;
  starts_at: string;
  expires_at: string;
  qualification: StoredQualification | null;
  goal_type: string | null;
  goal_target: number | null;
}

function versionedTerms(t: StoredTerms): LiveVersion['terms'] {
  const qualification = fromStoredQualification(t.qualification);
  const goal = goalOf(t.goal_type, t.goal_target);
  return {
    minSpend: Number(t.min_spend),
    rewardType: t.reward_type,
    cashbackAmount: Number(t.cashback_amount),
    cashbackPercent: t.cashback_percent === null ? null : String(t.cashback_percent),
    merchantFeeAmount: Number(t.merchant_fee_amount),
    startsAt: new Date(t.starts_at),
    expiresAt: new Date(t.expires_at),
    ...(qualification ? { qualification } : {}),
    ...(goal ? { goal } : {}),
  };
}
