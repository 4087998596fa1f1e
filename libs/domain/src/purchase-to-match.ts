import { latest } from './audience';
import type { PurchaseToMatch } from './matching';
import { PROGRAM_DEFAULTS } from './program-defaults';
import { netAmount } from './refunds';

/** A purchase of a matching chunk as claimed (the columns the rules read; merchant resolved). */
export interface ClaimedPurchase {
  id: string;
  kind: string;
  amount: string;
  /** Sum of the refunds stored for the purchase. */
  refunded: string;
  currency: string | null;
  transacted_at: Date;
  merchant_id: string | null;
  network: string | null;
  channel: string | null;
  time_zone: string | null;
  service_share_rate: string | null;
  /** The cardholder (holdouts); absent = no holdout applies. */
  cardholder_token?: string;
  /** A further clearing of a chain cleared before: what it adds (PurchaseFacts.addedToChain). */
  added_to_chain?: string;
  /** false: counts toward goals, earns nothing (PurchaseFacts.rewardable). */
  rewardable?: boolean;
}

/** Allocation order: transacted_at, then id (budget and per-cardholder limits are spent in it). */
export function compareAllocationOrder(
  a: Pick<ClaimedPurchase, 'id' | 'transacted_at'>,
  b: Pick<ClaimedPurchase, 'id' | 'transacted_at'>,
): number {
  return a.transacted_at.getTime() - b.transacted_at.getTime() || (a.id < b.id ? -1 : 1);
}

/**
 * The purchases to allocate, in allocation order: each one's facts (its amount net of the refunds
 * already stored, its latest earlier purchase at the merchant from `history`) and its candidate
 * enrollments (and, to explain, the offers it is evaluated against without one). An authorization
 * decided at the swipe does not count toward goal offers: a card
 * chain counts once, on its clearing (docs/offers.md, Goal offers).
 */
export function toPurchasesToMatch<P extends ClaimedPurchase>(
  purchases: readonly P[],
  enrollmentIdsOf: (p: P) => string[],
  history: ReadonlyMap<string, Date | null>,
  /** Offers each purchase is explained against without an enrollment (the report only). */
  unenrolled?: ReadonlyMap<string, string[]>,
  /** The holdout key of the purchase's institution (holdout.ts); absent = no holdout applies. */
  holdoutKeyOf?: (p: P) => Buffer,
): PurchaseToMatch[] {
  return [...purchases].sort(compareAllocationOrder).map((p) => ({
    transactionId: p.id,
    facts: {
      merchantId: p.merchant_id,
      amount: netAmount(p.amount, [p.refunded]),
      currency: p.currency?.trim() || null,
      transactedAt: p.transacted_at,
      network: p.network,
      timeZone: p.time_zone ?? undefined,
      channel: p.channel,
      lastPurchaseAtMerchant: history.get(p.id) ?? null,
      ...(p.kind === 'authorization' ? { countsTowardGoals: false } : {}),
      ...(p.added_to_chain !== undefined ? { addedToChain: p.added_to_chain } : {}),
      ...(p.rewardable === false ? { rewardable: false } : {}),
      ...(holdoutKeyOf && p.cardholder_token !== undefined
        ? { holdout: { key: holdoutKeyOf(p), cardholderToken: p.cardholder_token } }
        : {}),
    },
    serviceShareRate: p.service_share_rate ?? PROGRAM_DEFAULTS.serviceShareRate,
    enrollmentIds: enrollmentIdsOf(p),
    ...(unenrolled?.has(p.id) ? { unenrolledOfferIds: unenrolled.get(p.id) } : {}),
  }));
}

/**
 * The latest earlier purchase of each of `needed` at its merchant: the stored one (`stored`, read
 * before the chunk) or an earlier purchase of the same cardholder and merchant in this chunk, which
 * is not yet recorded against its merchant, whichever is later. `keyOf` names the cardholder and
 * merchant of a purchase.
 */
export function latestEarlierPurchases<P extends Pick<ClaimedPurchase, 'id' | 'transacted_at'>>(
  needed: readonly P[],
  chunk: readonly P[],
  keyOf: (p: P) => string,
  stored: ReadonlyMap<string, Date | null>,
): Map<string, Date | null> {
  const out = new Map(stored);
  const byKey = new Map<string, P[]>();
  for (const p of chunk) byKey.set(keyOf(p), [...(byKey.get(keyOf(p)) ?? []), p]);
  for (const p of needed) {
    const t = p.transacted_at.getTime();
    let last = out.get(p.id) ?? null;
    for (const q of byKey.get(keyOf(p)) ?? [])
      if (q.transacted_at.getTime() < t) last = latest(last, q.transacted_at);
    out.set(p.id, last);
  }
  return out;
}
