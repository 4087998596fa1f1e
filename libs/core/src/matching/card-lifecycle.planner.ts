import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ChainAction,
  chainCause,
  chainEvents,
  ChainFold,
  ChainState,
  clearedTotal,
  clearingKeepsReward,
  compositeKey,
  compareChainRecords,
  foldChain,
  isLifecycleKind,
  LifecycleKind,
  sourcesOf,
  sumAmounts,
} from '@app/domain';
import {
  CardLifecycleRepository,
  ChainRedemptionRow,
  ChainUpdate,
  LockedChain,
} from './card-lifecycle.repository';
import type { ClaimedRow } from './matching.repository';
import type { DueReversal } from './reversals';

/** The chain a lifecycle record belongs to: its own ref for an authorization, else the one it names. */
const chainRefOf = (r: ClaimedRow) =>
  r.kind === 'authorization' ? r.transaction_ref : r.original_transaction_ref!;

interface PlannedChain {
  chain: LockedChain;
  fold: ChainFold;
  records: ClaimedRow[];
  /** The chain's cleared total after this run's clearings (decimal text); null without one. */
  clearedAmount: string | null;
}

/** What the chunk's lifecycle records (or an expiry pass) do, before allocation. */
export interface LifecyclePlan {
  /** Records decided now, as purchases: the record's amount, net of the chain's refunds. */
  decide: ClaimedRow[];
  /** Live redemptions reversed outright (a void, an expiry), with the cause. */
  reverse: DueReversal<ChainRedemptionRow>[];
  /** Live redemptions reconsidered against the record decided now (by that record's id). */
  reconsider: Map<string, ChainRedemptionRow>;
  /**
   * Records decided now whose chain's goal round reward stands (a further clearing): they count
   * toward goals and earn nothing; `matched`, like a clearing that confirmed its reward.
   */
  standing: Set<string>;
  /** Final statuses of the lifecycle records that are not decided now. */
  statuses: Map<string, string>;
  chains: PlannedChain[];
  /** Every chain read for the run (those naming another record too), as it stood. */
  read: LockedChain[];
  /** The step each record takes (ignore: a record that joins no chain, or folded with its expiry). */
  actions: Map<string, ChainAction>;
  /**
   * Report mode only: authorizations recorded now (reward_on clearing), in `decide` as the clearing
   * they wait for at this amount (simulate's would_match_at_clearing); never written.
   */
  atClearing: Set<string>;
}

/** A plan that changes nothing (a fresh one each time: matching edits `reconsider`). */
const emptyPlan = (): LifecyclePlan => ({
  decide: [],
  reverse: [],
  reconsider: new Map(),
  standing: new Set(),
  statuses: new Map(),
  chains: [],
  read: [],
  actions: new Map(),
  atClearing: new Set(),
});

/**
 * The card lifecycle inside chunk matching (docs/transactions.md). Before allocation: lock the
 * chains of the chunk's lifecycle records (and of its refunds that name one), fold each chain's
 * records through the state table (foldChain in libs/domain) and turn the outcome into what
 * matching already knows how to do: records to decide become purchases fed to the same
 * allocation, redemptions to undo become reversals on the same path as a refund's. After
 * allocation: a reconsidered redemption that the clearing would give again (same offer, same
 * cashback) is kept (the pair is taken out, their budget and count deltas cancel), and the
 * chains' new state is written. A handful of statements per chunk, none per record.
 */
@Injectable()
export class CardLifecyclePlanner {
  constructor(private readonly repo: CardLifecycleRepository) {}

  /** `lock` false: report mode (simulate) reads the chains as they stand, creating and locking none. */
  async plan(m: EntityManager, claimed: ClaimedRow[], lock = true): Promise<LifecyclePlan> {
    const records = claimed.filter((r) => isLifecycleKind(r.kind));
    const refunds = claimed.filter((r) => r.kind === 'refund');
    if (!records.length && !refunds.length) return emptyPlan();
    const keys = new Map<string, { institutionId: string; authorizationRef: string }>();
    for (const r of records)
      keys.set(compositeKey(r.institution_id, chainRefOf(r)), {
        institutionId: r.institution_id,
        authorizationRef: chainRefOf(r),
      });
    // Refunds that name a chain's record: lock that chain too, so a refund and a decision on the
    // same chain never interleave.
    for (const k of await this.repo.chainsOfRefunds(m, refunds))
      keys.set(compositeKey(k.institutionId, k.authorizationRef), k);
    if (!keys.size) return emptyPlan();
    const chains = await (lock ? this.repo.lockChains : this.repo.readChains).call(
      this.repo,
      m,
      [...keys.values()],
      sourcesOf('reversed'),
    );

    const byChain = new Map<string, ClaimedRow[]>();
    for (const r of records) {
      const k = compositeKey(r.institution_id, chainRefOf(r));
      byChain.set(k, [...(byChain.get(k) ?? []), r]);
    }
    const planned: PlannedChain[] = [];
    const standing = new Set<string>();
    /** Per decided record: the amount to decide on and, for a further clearing, what it adds. */
    const decidedAs = new Map<string, { amount: string; added?: string }>();
    const statuses = new Map<string, string>();
    const actions = new Map<string, ChainAction>();
    const atClearing = new Set<string>();
    const decided: ClaimedRow[] = [];
    for (const chain of chains) {
      const rows = (
        byChain.get(compositeKey(chain.institution_id, chain.authorization_ref)) ?? []
      ).sort((a, b) =>
        compareChainRecords(
          { kind: a.kind as LifecycleKind, transactedAt: a.transacted_at, id: a.id },
          { kind: b.kind as LifecycleKind, transactedAt: b.transacted_at, id: b.id },
        ),
      );
      if (!rows.length) continue; // locked for a refund only
      // A clearing or void naming a purchase (or any record but an authorization) has no chain to
      // join: recorded, never rewarded (else a purchase and its "clearing" would earn twice).
      if (chain.names_other) {
        for (const r of rows) {
          statuses.set(r.id, 'unmatched');
          actions.set(r.id, 'ignore');
        }
        continue;
      }
      let fold = foldChain(
        chain.reward_on,
        chain.state,
        chain.live_redemption_id !== null,
        chainEvents(
          rows.map((r) => ({
            id: r.id,
            kind: r.kind as LifecycleKind,
            transactedAt: r.transacted_at,
          })),
          chain.authorization_expiry_days,
          rows[0].now,
        ),
        (id, action) => actions.set(id, action),
      );
      // The clearings add up: a further clearing is decided on the chain's total, and adds to a
      // goal only what it brings (the chain was counted at its first clearing).
      const clearings = rows.filter((r) => r.kind === 'clearing').map((r) => r.amount);
      const clearedAmount = clearings.length
        ? clearedTotal(chain.state, chain.cleared_amount, clearings)
        : null;
      const decidedRow = rows.find((r) => r.id === fold.decide);
      if (decidedRow?.kind === 'clearing' && clearedAmount !== null)
        decidedAs.set(decidedRow.id, {
          amount: clearedAmount,
          ...(chain.state === 'cleared' ? { added: sumAmounts(clearings) } : {}),
        });
      // A goal round's reward is the round's: a further clearing never replaces it (it counts
      // toward the goal and earns nothing, so the chain still holds one live reward).
      if (fold.stored === 'reconsider' && chain.live_goal_round !== null) {
        fold = { ...fold, stored: 'keep' };
        standing.add(fold.decide!);
      }
      planned.push({ chain, fold, records: rows, clearedAmount });
      for (const r of rows)
        if (r.id === fold.decide) decided.push(r);
        else if (!lock && actions.get(r.id) === 'record') {
          atClearing.add(r.id);
          decided.push(r);
        } else statuses.set(r.id, 'unmatched');
    }

    // The decided records' amounts are netted of the chain's refunds (against either ref).
    const chainOf = new Map(
      planned.map((p) => [compositeKey(p.chain.institution_id, p.chain.authorization_ref), p]),
    );
    const refunded = await this.repo.refundedOfChains(
      m,
      decided.map((r) => ({
        institutionId: r.institution_id,
        authorizationRef: chainRefOf(r),
        clearingRef:
          chainOf.get(compositeKey(r.institution_id, chainRefOf(r)))?.chain.clearing_ref ?? null,
        ownRef: r.kind === 'clearing' ? r.transaction_ref : null,
      })),
    );
    // A clearing is the authorization's purchase: when its own merchant does not resolve, the
    // authorization's does.
    const merchantOf = new Map(
      planned.map((p) => [p.fold.decide, p.chain.authorization_merchant_id] as const),
    );
    const decide = decided.map((r, i) => {
      const total = decidedAs.get(r.id);
      return {
        ...r,
        kind: atClearing.has(r.id) ? ('clearing' as const) : r.kind,
        merchant_id: r.merchant_id ?? merchantOf.get(r.id) ?? null,
        refunded: refunded.get(String(i + 1)) ?? '0',
        ...(total ? { amount: total.amount } : {}),
        ...(total?.added !== undefined ? { added_to_chain: total.added } : {}),
        ...(standing.has(r.id) ? { rewardable: false } : {}),
      };
    });

    const stored = planned.filter((p) => p.fold.stored !== 'keep');
    const live = new Map(
      (
        await this.repo.liveRedemptionsOf(
          m,
          stored.map((p) => p.chain.rewarded_transaction_id!),
          sourcesOf('reversed'),
        )
      ).map((r) => [r.transaction_id, r]),
    );
    const reverse: DueReversal<ChainRedemptionRow>[] = [];
    const reconsider = new Map<string, ChainRedemptionRow>();
    for (const p of stored) {
      const row = live.get(p.chain.rewarded_transaction_id!);
      if (!row) continue;
      if (p.fold.stored === 'reverse') {
        const by = p.fold.reversedBy!;
        const ref = p.records.find((r) => r.id === by.id)?.transaction_ref ?? null;
        reverse.push({ row, cause: chainCause(by.event, ref) });
      } else reconsider.set(p.fold.decide!, row);
    }
    return {
      decide,
      reverse,
      reconsider,
      standing,
      statuses,
      chains: planned,
      read: chains,
      actions,
      atClearing,
    };
  }

  /**
   * A reconsidered redemption's enrollment is a candidate of the record decided now even when it
   * is no longer active (its redemption is given back first, which may make it active again).
   */
  addReconsidered(
    plan: LifecyclePlan,
    candidates: Map<string, { id: string; offerId: string }[]>,
    keyOf: (r: ClaimedRow) => string,
  ): void {
    for (const r of plan.decide) {
      const row = plan.reconsider.get(r.id);
      if (!row || !r.merchant_id) continue;
      const list = candidates.get(keyOf(r)) ?? [];
      if (!list.some((c) => c.id === row.cardholder_offer_id))
        candidates.set(keyOf(r), [...list, { id: row.cardholder_offer_id, offerId: row.offer_id }]);
    }
  }

  /**
   * Which reconsidered redemptions stand: the record decided now earned the same offer and
   * cashback. Their decision and reversal are taken out of the chunk's writes (by the caller).
   */
  kept(
    plan: LifecyclePlan,
    allocated: readonly {
      transactionId: string;
      offerId: string;
      reward: { cashback: number; merchantFunded: number };
    }[],
  ): Set<string> {
    const out = new Set<string>();
    if (!plan.reconsider.size) return out;
    const byId = new Map(allocated.map((a) => [a.transactionId, a]));
    for (const [decidedId, row] of plan.reconsider) {
      const a = byId.get(decidedId);
      if (
        a &&
        clearingKeepsReward(
          { offerId: row.offer_id, cashback: Number(row.cashback_amount) },
          { offerId: a.offerId, cashback: a.reward.cashback },
        ) &&
        Number(row.merchant_funded_amount) === a.reward.merchantFunded
      )
        out.add(decidedId);
    }
    return out;
  }

  /**
   * The chains' new state: the record now rewarded (the decided one when it got a redemption, the
   * stored one when it was kept or untouched, none when reversed), the amounts and the expiry.
   */
  async finish(
    m: EntityManager,
    plan: LifecyclePlan,
    allocated: ReadonlySet<string>,
    kept: ReadonlySet<string>,
    reversedRedemptions: ReadonlySet<string>,
  ): Promise<void> {
    const updates: ChainUpdate[] = plan.chains.map(({ chain, fold, records, clearedAmount }) => {
      // A chain whose redemption is no longer live (reversed before, or now) carries none.
      let rewarded = chain.live_redemption_id ? chain.rewarded_transaction_id : null;
      if (chain.live_redemption_id && reversedRedemptions.has(chain.live_redemption_id))
        rewarded = null;
      if (fold.decide && allocated.has(fold.decide) && !kept.has(fold.decide))
        rewarded = fold.decide;
      const auth = records.find((r) => r.kind === 'authorization');
      const clearing =
        fold.state === 'cleared' ? records.find((r) => r.kind === 'clearing') : undefined;
      return {
        institutionId: chain.institution_id,
        authorizationRef: chain.authorization_ref,
        state: fold.state,
        rewardedTransactionId: rewarded,
        authorizationAmount: auth?.amount ?? null,
        clearingRef: clearing?.transaction_ref ?? null,
        clearedAmount: clearing ? clearedAmount : null,
        authorizedAt: fold.state === 'authorized' ? (auth?.transacted_at ?? null) : null,
      };
    });
    await this.repo.update(m, updates);
  }

  /** Expiry: the chains whose authorization expired, folded with an `expiry` event. */
  async planExpiry(m: EntityManager, at: Date, limit: number): Promise<LifecyclePlan> {
    const chains = await this.repo.expiredChains(m, at, limit, sourcesOf('reversed'));
    if (!chains.length) return emptyPlan();
    const planned: PlannedChain[] = chains.map((chain) => ({
      chain,
      fold: foldChain(
        chain.reward_on,
        chain.state as ChainState,
        chain.live_redemption_id !== null,
        [{ id: null, event: 'expiry' }],
      ),
      records: [],
      clearedAmount: null,
    }));
    const reverse = await this.repo.liveRedemptionsOf(
      m,
      planned
        .filter((p) => p.fold.stored === 'reverse')
        .map((p) => p.chain.rewarded_transaction_id!),
      sourcesOf('reversed'),
    );
    return {
      ...emptyPlan(),
      reverse: reverse.map((row) => ({ row, cause: chainCause('expiry', null) })),
      chains: planned,
    };
  }
}
