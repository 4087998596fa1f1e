import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { EvaluatedOffer, giveBackAll, noDeltas, RedemptionSource, sourcesOf } from '@app/domain';
import { CardLifecyclePlanner } from './card-lifecycle.planner';
import { EvaluationPipeline, reversedRedemption } from './evaluation.pipeline';
import { MatchingRepository } from './matching.repository';
import { RedemptionWriter } from './redemption.writer';
import { lockReversals } from './reversals';

export interface MatchStats {
  /** Ids asked for. */
  requested: number;
  /** Rows this run took (still `received`, not locked by another run). */
  claimed: number;
  /** Purchases by outcome. */
  matched: number;
  /** Counted toward a goal offer's round without completing it (stored `unmatched`: no reward yet). */
  countedTowardGoal: number;
  /** No offer took them. */
  unmatched: number;
  merchantUnresolved: number;
  refunds: number;
  reversed: number;
  /** Refunds left `received` because their purchase was being processed by another run. */
  deferred: number;
  /** Milliseconds per stage (read: claim and lookups; locks: waiting for and reading locked offers and enrollments; write; commit). */
  ms?: { read: number; locks: number; write: number; commit: number };
}

/** What a stored transaction's re-run (rematchStored) found and did. */
export interface StoredMatch {
  /** The transaction's status after the run (`matched`, `unmatched`, …); null when not stored. */
  status: string | null;
  /** A live redemption the transaction (or its card chain) already had: nothing was evaluated. */
  alreadyRewarded: string | null;
  /** The redemption this run made, or null. */
  redemption: {
    id: string;
    offerId: string;
    enrollmentId: string;
    /** Minor units of `currency`. */
    institutionPayout: number;
    currency: string;
  } | null;
  /** Every offer the purchase was evaluated against, outcome and reasons (simulate's vocabulary). */
  evaluations: EvaluatedOffer[];
}

/** How a stored transaction is run again. */
export interface StoredRun {
  /**
   * The caller's transaction (a claim records its decision in the same one); without it the
   * re-run opens and commits its own.
   */
  within?: EntityManager;
  /** Who the redemption is made for: `claim` for a claim's decision; default matching. */
  source?: RedemptionSource;
}

/**
 * Matching's two write-mode entry points into the EvaluationPipeline (simulate is the third, in
 * report mode): a chunk of claimed `received` rows (the worker), and one stored transaction
 * whatever its status (claims). Each opens the transaction, reads its rows and hands them to the
 * pipeline, which decides and writes in that transaction; the authorization expiry pass is here
 * too (it reverses on the same path).
 *
 * Rerunning a chunk changes nothing (its rows are no longer `received`); the unique constraints
 * on redemption(transaction_id), settlement_entry(redemption_id) and
 * webhook_delivery(redemption_id, event) are the last line. Ids not in this database are ignored.
 */
@Injectable()
export class MatchingService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: MatchingRepository,
    private readonly pipeline: EvaluationPipeline,
    private readonly lifecycle: CardLifecyclePlanner,
    private readonly writer: RedemptionWriter,
  ) {}

  /**
   * The worker's matching of a chunk, in one transaction: claim the rows still `received`
   * (MatchingRepository.claim: SKIP LOCKED, merchant resolved, stored refunds summed), then the
   * pipeline in write mode.
   */
  async matchChunk(ids: readonly string[]): Promise<MatchStats> {
    const stats: MatchStats = {
      requested: ids.length,
      claimed: 0,
      matched: 0,
      countedTowardGoal: 0,
      unmatched: 0,
      merchantUnresolved: 0,
      refunds: 0,
      reversed: 0,
      deferred: 0,
    };
    if (!ids.length) return stats;
    const t0 = performance.now();
    const at: { locks?: number; locked?: number } = {};
    let t3 = t0;
    await this.db.transaction(async (m) => {
      const claimed = await this.repo.claim(m, ids);
      stats.claimed = claimed.length;
      if (!claimed.length) return;
      const r = await this.pipeline.run(m, claimed, { write: true }, at);
      t3 = performance.now();
      stats.refunds = claimed.filter((c) => c.kind === 'refund').length;
      stats.deferred = r.refunds.deferred;
      stats.matched = r.allocation.redemptions.length + r.kept.size;
      stats.reversed = r.reversals.length;
      stats.merchantUnresolved = r.purchases.length - r.resolved.length;
      stats.countedTowardGoal = new Set(
        r.allocation.contributions
          .map((c) => c.transactionId)
          .filter((id) => r.statuses.get(id) === 'unmatched'),
      ).size;
      stats.unmatched = r.resolved.length - stats.matched - stats.countedTowardGoal;
    });
    if (stats.claimed) {
      const round = (x: number) => Math.round(x * 10) / 10;
      const t1 = at.locks ?? t0;
      const t2 = at.locked ?? t1;
      stats.ms = {
        read: round(t1 - t0),
        locks: round(t2 - t1),
        write: round(t3 - t2),
        commit: round(performance.now() - t3),
      };
    }
    return stats;
  }

  /**
   * Matching run again, now, for one stored transaction whatever its status (claims: its merchant
   * may have been mapped since, or it was quarantined and fixed), in write mode: the row is taken
   * FOR UPDATE (a chunk holding it is waited for), and a redemption, its settlement entry, budget,
   * goal progress and `redemption.completed` delivery are made exactly as matching makes them,
   * committed before this returns. A row still `received` is simply matched (the queued job then
   * finds nothing to do). A transaction that already has a live redemption (itself, or its card
   * chain's rewarded record) is not evaluated (`alreadyRewarded`). Goal offers the transaction
   * already counted toward are not evaluated again (a purchase counts once). With `within`, all of
   * it happens in the caller's transaction (committed with it).
   */
  async rematchStored(transactionId: string, opts: StoredRun = {}): Promise<StoredMatch> {
    const run = async (m: EntityManager): Promise<StoredMatch> => {
      const row = await this.repo.stored(m, transactionId);
      if (!row) return { status: null, alreadyRewarded: null, redemption: null, evaluations: [] };
      const live = await this.liveRedemption(m, row.id);
      if (live)
        return { status: row.status, alreadyRewarded: live, redemption: null, evaluations: [] };
      const r = await this.pipeline.run(m, [row], {
        write: true,
        explain: true,
        countedOnce: true,
        source: opts.source,
      });
      const made = r.allocation.redemptions.find((a) => a.transactionId === row.id);
      const id = r.redemptionIds.get(row.id);
      return {
        status: r.statuses.get(row.id) ?? row.status,
        alreadyRewarded: null,
        redemption:
          made && id
            ? {
                id,
                offerId: made.offerId,
                enrollmentId: made.enrollmentId,
                institutionPayout: made.reward.institutionPayout,
                currency: made.reward.currency,
              }
            : null,
        evaluations: r.report.get(row.id) ?? [],
      };
    };
    return opts.within ? run(opts.within) : this.db.transaction(run);
  }

  /**
   * The live redemption of a stored record or of its card chain (the record is then already
   * rewarded), read in the caller's transaction; null when there is none.
   */
  liveRedemption(m: EntityManager, transactionId: string): Promise<string | null> {
    return this.repo.liveRedemptionOfRecord(m, transactionId, sourcesOf('reversed'));
  }

  /**
   * Expiry of the card lifecycle: authorized chains whose authorization_expiry_days passed at `at`
   * become `expired` and, under reward_on=authorization, their redemption is reversed on the same
   * path as a refund's. Set-based (up to `limit` chains per call, locked in key order, those held
   * elsewhere skipped) and idempotent: an expired chain is never taken again.
   */
  async expireAuthorizations(
    at: Date,
    limit = 1000,
  ): Promise<{ expired: number; reversed: number }> {
    return this.db.transaction(async (m) => {
      const chain = await this.lifecycle.planExpiry(m, at, limit);
      if (!chain.chains.length) return { expired: 0, reversed: 0 };
      const reversals = await lockReversals(m, this.repo, chain.reverse);
      const offers = await this.repo.lockOffers(m, [
        ...new Set(reversals.map((r) => r.row.offer_id)),
      ]);
      const enrollments = await this.repo.lockEnrollments(m, [
        ...new Set(reversals.map((r) => r.row.cardholder_offer_id)),
      ]);
      const deltas = noDeltas();
      giveBackAll(reversals.map(reversedRedemption), offers, enrollments, deltas);
      await this.repo.applyEnrollments(m, deltas.enrollments);
      await this.writer.reverse(m, reversals, new Date());
      await this.lifecycle.finish(
        m,
        chain,
        new Set(),
        new Set(),
        new Set(reversals.map((r) => r.row.redemption_id)),
      );
      await this.repo.applyBudget(m, deltas.budget);
      return { expired: chain.chains.length, reversed: reversals.length };
    });
  }
}
