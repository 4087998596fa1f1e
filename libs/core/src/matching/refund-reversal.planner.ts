import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  causingRefund,
  chainCause,
  compositeKey,
  linkRefund,
  needsEarlierTerms,
  netAmount,
  refundCause,
  refundReverses,
  sourcesOf,
  versionAt,
} from '@app/domain';
import type { LifecyclePlan } from './card-lifecycle.planner';
import { ClaimedRow, MatchingRepository, ReversalRow } from './matching.repository';
import { OfferVersionsReader } from './offer-versions.reader';
import { lockReversals, Reversal } from './reversals';

/** What the chunk's refunds (and its card lifecycle) reverse, before allocation. */
export interface ReversalPlan {
  /** Redemptions to reverse, their settlement entries locked, with the clawback of each. */
  reversals: Reversal[];
  /** Processed purchases the refunds named, in id order (goal offers review them too). */
  reviewed: string[];
  /** Final statuses of the refunds decided now. */
  statuses: Map<string, string>;
  /** Refunds left `received`: their purchase is held by another run. */
  deferred: number;
  /** The purchase each refund stands for (REFUND_ORIGINAL), by refund id, when one is stored. */
  originals: Map<string, string>;
  /** The refunds of the run by the purchase they stand for (a reversal's cause). */
  refundsOf: Map<string, ClaimedRow[]>;
}

/** How the pipeline runs the refunds: report mode locks nothing and may net a refund not stored. */
export interface RefundRunOptions {
  lock: boolean;
  /** A refund that is not stored (simulate): its amount nets its purchase too (decimal text). */
  unstoredRefund: string;
}

const WRITE: RefundRunOptions = { lock: true, unstoredRefund: '0' };

/**
 * The refunds of a chunk (libs/domain refund-reversal.ts, refunds.ts, settlement-state.ts): each
 * refund is linked to its purchase (linkRefund); a processed purchase is locked and its redemption,
 * if any, reversed when the net amount (purchase minus all its refunds) falls below min_spend; the
 * settlement entry decides the transition (pending → reversed, settled → reversed + clawback). The
 * card lifecycle's reversals (a void, a reconsidered redemption) join them on the same path, once
 * per redemption: a redemption a refund reverses is not reconsidered.
 */
@Injectable()
export class RefundReversalPlanner {
  constructor(
    private readonly repo: MatchingRepository,
    private readonly versions: OfferVersionsReader,
  ) {}

  /**
   * The min_spend a redemption was earned under: the live offer's, or for a purchase made before
   * the live terms took effect, the version's live then (offer-versions.ts versionAt; versions read
   * only for such purchases).
   */
  private async minSpendAtPurchase(
    m: EntityManager,
    rows: ReversalRow[],
  ): Promise<(r: ReversalRow) => number> {
    const earlier = (r: ReversalRow) =>
      !!r.transacted_at && needsEarlierTerms(r.terms_from ?? undefined, r.transacted_at);
    const older = rows.filter(earlier);
    const versions = await this.versions.versionsOf(m, [...new Set(older.map((r) => r.offer_id))]);
    return (r) => {
      const list = versions.get(r.offer_id);
      const v = list && earlier(r) ? versionAt(list, r.transacted_at!) : undefined;
      return v ? v.terms.minSpend : Number(r.min_spend);
    };
  }

  async plan(
    m: EntityManager,
    refunds: ClaimedRow[],
    purchases: ClaimedRow[],
    lifecycle: LifecyclePlan,
    run: RefundRunOptions = WRITE,
  ): Promise<ReversalPlan> {
    const out: ReversalPlan = {
      reversals: [],
      reviewed: [],
      statuses: new Map(),
      deferred: 0,
      originals: new Map(),
      refundsOf: new Map(),
    };
    if (refunds.length) await this.planRefunds(m, refunds, purchases, out, run);
    const byRefund = new Set(out.reversals.map((r) => r.row.redemption_id));
    for (const [id, row] of lifecycle.reconsider)
      if (byRefund.has(row.redemption_id)) lifecycle.reconsider.delete(id);
    // A reconsidered redemption is reversed by the clearing decided now (clearing_changed).
    const refOf = new Map(lifecycle.decide.map((r) => [r.id, r.transaction_ref]));
    out.reversals.push(
      ...(await lockReversals(
        m,
        this.repo,
        [
          ...lifecycle.reverse,
          ...[...lifecycle.reconsider].map(([decidedId, row]) => ({
            row,
            cause: chainCause('clearing', refOf.get(decidedId) ?? null),
          })),
        ].filter((d) => !byRefund.has(d.row.redemption_id)),
        run.lock,
      )),
    );
    return out;
  }

  private async planRefunds(
    m: EntityManager,
    refunds: ClaimedRow[],
    purchases: ClaimedRow[],
    out: ReversalPlan,
    run: RefundRunOptions,
  ): Promise<void> {
    const originals = await this.repo.purchasesOfRefunds(m, refunds);
    const originalByRef = new Map(
      originals.map((o) => [compositeKey(o.institution_id, o.transaction_ref), o.id]),
    );
    const inChunk = new Set(purchases.map((p) => p.id));
    const outside = [
      ...new Set(originals.map((o) => o.id).filter((id) => !inChunk.has(id))),
    ].sort();
    const locked = await this.repo.lockPurchases(m, outside, run.lock);
    const lockedStatus = new Map(locked.map((l) => [l.id, l.status]));
    const review = new Set<string>();
    for (const r of refunds) {
      const originalId = originalByRef.get(
        compositeKey(r.institution_id, r.original_transaction_ref!),
      );
      const link = linkRefund(
        originalId !== undefined,
        originalId !== undefined && inChunk.has(originalId),
        originalId === undefined ? undefined : lockedStatus.get(originalId),
      );
      if (originalId !== undefined) {
        out.originals.set(r.id, originalId);
        out.refundsOf.set(originalId, [...(out.refundsOf.get(originalId) ?? []), r]);
      }
      if (link === 'no_purchase') out.statuses.set(r.id, 'unmatched');
      else if (link === 'deferred') out.deferred++;
      else out.statuses.set(r.id, 'matched');
      if (link === 'review') review.add(originalId!);
    }
    out.reviewed.push(...[...review].sort());
    if (!review.size) return;
    const rows = await this.repo.liveRedemptionsOf(m, [...review], sourcesOf('reversed'));
    const minSpendOf = await this.minSpendAtPurchase(m, rows);
    const due = rows.filter((r) =>
      refundReverses(
        netAmount(r.amount, [r.refunded, run.unstoredRefund]),
        r.currency,
        minSpendOf(r),
      ),
    );
    out.reversals.push(
      ...(await lockReversals(
        m,
        this.repo,
        due.map((row) => ({
          row,
          cause: refundCause(causingRefund(out.refundsOf.get(row.transaction_id) ?? []), false),
        })),
        run.lock,
      )),
    );
  }
}
