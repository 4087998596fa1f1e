import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { prepared } from '@app/db';
import { ChainState, LIFECYCLE_DEFAULTS, RewardOn } from '@app/domain';
import { REVERSAL_ROW_COLUMNS, ReversalRow } from './reversal-row';
import {
  keysOfIds,
  keysOfRefs,
  refundsSumSql,
  storedByRefSql,
  withKeyed,
} from '../ingestion/transaction-store';

/** A chain as locked for a chunk or an expiry pass. */
export interface LockedChain {
  institution_id: string;
  authorization_ref: string;
  state: ChainState;
  clearing_ref: string | null;
  rewarded_transaction_id: string | null;
  /** The rewarded record's redemption while it is live (pending or settled). */
  live_redemption_id: string | null;
  reward_on: RewardOn;
  authorization_expiry_days: number;
  /** The merchant its authorization resolved to (a clearing whose own identifier does not resolve uses it). */
  authorization_merchant_id: string | null;
  /** The ref names a record that is not an authorization (a purchase, a refund…): no chain. */
  names_other: boolean;
  /** What the chain's clearings added up to (decimal text), null before its first clearing. */
  cleared_amount: string | null;
  /** The goal round of the live redemption when it is a goal offer's, else null. */
  live_goal_round: number | null;
}

export interface ChainUpdate {
  institutionId: string;
  authorizationRef: string;
  state: ChainState;
  rewardedTransactionId: string | null;
  /** Set by the chain's authorization (null: unchanged). */
  authorizationAmount: string | null;
  /** Set by the clearing that first cleared the chain (null: unchanged). */
  clearingRef: string | null;
  /** The chain's cleared total after this run's clearings (null: unchanged). */
  clearedAmount: string | null;
  /** When the chain is `authorized`: the authorization's transacted_at (expires_at = it + expiry days). */
  authorizedAt: Date | null;
}

/** A live redemption with what a reversal and a reconsideration need. */
export type ChainRedemptionRow = ReversalRow & { cashback_amount: string };

/**
 * Whether a chain's ref names a record that is not an authorization (a purchase, a refund, a
 * clearing): a clearing or void naming it joins no chain (unique (institution_id, transaction_ref)).
 */
const namesOtherSql = (institutionId: string, ref: string) =>
  `EXISTS ${storedByRefSql('o', institutionId, ref, '1', `AND o.kind <> 'authorization'`)}`;

const CHAIN_COLUMNS = `c.institution_id, c.authorization_ref, c.state, c.clearing_ref, c.rewarded_transaction_id,
  c.cleared_amount::text AS cleared_amount, r.id AS live_redemption_id, r.goal_round AS live_goal_round,
  COALESCE(p.reward_on, '${LIFECYCLE_DEFAULTS.rewardOn}') AS reward_on,
  COALESCE(p.authorization_expiry_days, ${LIFECYCLE_DEFAULTS.authorizationExpiryDays})::int AS authorization_expiry_days,
  ${storedByRefSql('a', 'c.institution_id', 'c.authorization_ref', 'a.merchant_id', `AND a.kind = 'authorization'`)}
    AS authorization_merchant_id,
  ${namesOtherSql('c.institution_id', 'c.authorization_ref')} AS names_other`;

/**
 * The sum of the refunds of a chain: a refund names the chain's (first) clearing, its
 * authorization, or the chain's record at hand (alias t: the rewarded or counted record, which
 * may be a further clearing) (alias c: card_chain), found through the refunds' keys.
 */
export const chainRefundedSql = refundsSumSql(
  'c.institution_id',
  'IN (c.authorization_ref, c.clearing_ref, t.transaction_ref)',
);

/**
 * The statements of the card lifecycle (docs/transactions.md), each set-based, in the caller's
 * transaction. Matching locks its chains (lockChains) in (institution_id, authorization_ref)
 * order as JavaScript compares strings (code units), so concurrent chunks take them in one order
 * and serialize on a chain. The expiry pass (expiredChains) orders by SQL, whose text order may
 * differ, but takes its chains FOR UPDATE SKIP LOCKED: it never waits for a chain a chunk holds.
 * Both lock chains before any offer or enrollment, so a chunk waiting for a chain the pass holds
 * holds nothing the pass needs; they never deadlock.
 */
@Injectable()
export class CardLifecycleRepository {
  /**
   * Creates the chains that do not exist yet and locks all of them (INSERT … ON CONFLICT DO
   * UPDATE locks the existing row), then reads them with the program's reward_on and expiry and
   * the rewarded record's live redemption. Keys must be distinct. Two statements: the read must
   * see what the run that held a chain before committed, its redemption included; under READ
   * COMMITTED a statement that waited for the lock still reads other tables as of its own start
   * (one statement read the chain's new rewarded record without its redemption, and a second
   * clearing racing the first was rewarded again).
   */
  async lockChains(
    m: EntityManager,
    keys: { institutionId: string; authorizationRef: string }[],
    liveStatuses: readonly string[],
  ): Promise<LockedChain[]> {
    if (!keys.length) return [];
    const sorted = [...keys].sort((a, b) =>
      a.institutionId < b.institutionId
        ? -1
        : a.institutionId > b.institutionId
          ? 1
          : a.authorizationRef < b.authorizationRef
            ? -1
            : a.authorizationRef > b.authorizationRef
              ? 1
              : 0,
    );
    const institutionIds = sorted.map((k) => k.institutionId);
    const refs = sorted.map((k) => k.authorizationRef);
    await m.query(
      prepared(`INSERT INTO card_chain (institution_id, authorization_ref)
       SELECT k.institution_id, k.ref FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS k(institution_id, ref, n)
        ORDER BY k.n
       ON CONFLICT (institution_id, authorization_ref) DO UPDATE SET updated_at = now()`),
      [institutionIds, refs],
    );
    return m.query(
      prepared(`SELECT ${CHAIN_COLUMNS}
         FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS k(institution_id, ref, n)
         JOIN card_chain c ON c.institution_id = k.institution_id AND c.authorization_ref = k.ref
         LEFT JOIN program p ON p.institution_id = c.institution_id
         LEFT JOIN redemption r ON r.transaction_id = c.rewarded_transaction_id AND r.status = ANY($3::text[])
        ORDER BY k.n`),
      [institutionIds, refs, liveStatuses],
    );
  }

  /**
   * The chains as they stand, without creating or locking any (report mode: simulate); a chain
   * never seen reads as `none`. The same columns as lockChains.
   */
  readChains(
    m: EntityManager,
    keys: { institutionId: string; authorizationRef: string }[],
    liveStatuses: readonly string[],
  ): Promise<LockedChain[]> {
    if (!keys.length) return Promise.resolve([]);
    return m.query(
      prepared(`WITH c AS (
         SELECT k.institution_id, k.authorization_ref, COALESCE(x.state, 'none') AS state, x.clearing_ref,
                x.rewarded_transaction_id, x.cleared_amount
           FROM unnest($1::uuid[], $2::text[]) AS k(institution_id, authorization_ref)
           LEFT JOIN card_chain x ON x.institution_id = k.institution_id AND x.authorization_ref = k.authorization_ref
       )
       SELECT ${CHAIN_COLUMNS}
         FROM c
         LEFT JOIN program p ON p.institution_id = c.institution_id
         LEFT JOIN redemption r ON r.transaction_id = c.rewarded_transaction_id AND r.status = ANY($3::text[])`),
      [keys.map((k) => k.institutionId), keys.map((k) => k.authorizationRef), liveStatuses],
    );
  }

  /**
   * The chains the refunds' originals belong to (an original that is an authorization or a
   * clearing), so that matching locks them with the chunk's own chains.
   */
  async chainsOfRefunds(
    m: EntityManager,
    refunds: { institution_id: string; original_transaction_ref: string | null }[],
  ): Promise<{ institutionId: string; authorizationRef: string }[]> {
    if (!refunds.length) return [];
    const rows: { institution_id: string; ref: string }[] = await m.query(
      prepared(`${withKeyed(keysOfRefs('unnest($1::uuid[], $2::text[]) AS u(institution_id, transaction_ref)'))}
       SELECT DISTINCT t.institution_id,
              CASE WHEN t.kind = 'authorization' THEN t.transaction_ref ELSE t.original_transaction_ref END AS ref
         FROM t
        WHERE t.kind IN ('authorization', 'clearing') AND (t.kind = 'authorization' OR t.original_transaction_ref IS NOT NULL)`),
      [refunds.map((r) => r.institution_id), refunds.map((r) => r.original_transaction_ref)],
    );
    return rows.map((r) => ({ institutionId: r.institution_id, authorizationRef: r.ref }));
  }

  /**
   * Per chain, the refunds stored against its authorization ref, its (first) clearing's ref and the
   * decided record's own ref (a further clearing).
   */
  async refundedOfChains(
    m: EntityManager,
    keys: {
      institutionId: string;
      authorizationRef: string;
      clearingRef: string | null;
      ownRef: string | null;
    }[],
  ): Promise<Map<string, string>> {
    if (!keys.length) return new Map();
    const rows: { n: string; refunded: string }[] = await m.query(
      prepared(`SELECT k.n::text AS n,
              ${refundsSumSql('k.institution_id', 'IN (k.authorization_ref, k.clearing_ref, k.own_ref)')}::text AS refunded
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[])
                WITH ORDINALITY AS k(institution_id, authorization_ref, clearing_ref, own_ref, n)`),
      [
        keys.map((k) => k.institutionId),
        keys.map((k) => k.authorizationRef),
        keys.map((k) => k.clearingRef),
        keys.map((k) => k.ownRef),
      ],
    );
    return new Map(rows.map((r) => [r.n, r.refunded]));
  }

  /**
   * The live redemptions of these records, with the chain's net amount inputs (cleared amount
   * when cleared, refunds against either ref) and what a reversal or a reconsideration needs.
   */
  liveRedemptionsOf(
    m: EntityManager,
    transactionIds: string[],
    liveStatuses: readonly string[],
  ): Promise<ChainRedemptionRow[]> {
    if (!transactionIds.length) return Promise.resolve([]);
    return m.query(
      prepared(`${withKeyed(keysOfIds())}
       SELECT t.id AS transaction_id, COALESCE(c.cleared_amount, t.amount)::text AS amount,
              ${chainRefundedSql}::text AS refunded,
              ${REVERSAL_ROW_COLUMNS}, r.cashback_amount, o.min_spend
         FROM t
         JOIN redemption r ON r.transaction_id = t.id
         JOIN offer o ON o.id = r.offer_id
         LEFT JOIN card_chain c ON c.rewarded_transaction_id = t.id
        WHERE r.status = ANY($2::text[])`),
      [transactionIds, liveStatuses],
    );
  }

  /** Writes the chains' new state (set-based). */
  async update(m: EntityManager, rows: ChainUpdate[]): Promise<void> {
    if (!rows.length) return;
    await m.query(
      prepared(`UPDATE card_chain c
          SET state = d.state, rewarded_transaction_id = d.rewarded,
              authorization_amount = COALESCE(d.authorization_amount, c.authorization_amount),
              clearing_ref = COALESCE(c.clearing_ref, d.clearing_ref),
              cleared_amount = COALESCE(d.cleared_amount, c.cleared_amount),
              cleared_at = CASE WHEN d.state = 'cleared' THEN COALESCE(c.cleared_at, now()) ELSE c.cleared_at END,
              expires_at = CASE WHEN d.state = 'authorized'
                                THEN COALESCE(c.expires_at, d.authorized_at + make_interval(days =>
                                  COALESCE(p.authorization_expiry_days, ${LIFECYCLE_DEFAULTS.authorizationExpiryDays})))
                                ELSE NULL END,
              updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::numeric[], $6::text[], $7::numeric[], $8::timestamptz[])
                AS d(institution_id, authorization_ref, state, rewarded, authorization_amount, clearing_ref, cleared_amount, authorized_at)
         LEFT JOIN program p ON p.institution_id = d.institution_id
        WHERE c.institution_id = d.institution_id AND c.authorization_ref = d.authorization_ref`),
      [
        rows.map((r) => r.institutionId),
        rows.map((r) => r.authorizationRef),
        rows.map((r) => r.state),
        rows.map((r) => r.rewardedTransactionId),
        rows.map((r) => r.authorizationAmount),
        rows.map((r) => r.clearingRef),
        rows.map((r) => r.clearedAmount),
        rows.map((r) => r.authorizedAt),
      ],
    );
  }

  /**
   * Authorized chains whose expiry passed at `at`, locked in key order; those another pass or a
   * chunk holds are skipped (the next pass takes them).
   */
  expiredChains(
    m: EntityManager,
    at: Date,
    limit: number,
    liveStatuses: readonly string[],
  ): Promise<LockedChain[]> {
    return m.query(
      prepared(`WITH c AS (
         SELECT * FROM card_chain
          WHERE state = 'authorized' AND expires_at <= $1
          ORDER BY institution_id, authorization_ref
          LIMIT $2
            FOR UPDATE SKIP LOCKED
       )
       SELECT ${CHAIN_COLUMNS}
         FROM c
         LEFT JOIN program p ON p.institution_id = c.institution_id
         LEFT JOIN redemption r ON r.transaction_id = c.rewarded_transaction_id AND r.status = ANY($3::text[])`),
      [at, limit, liveStatuses],
    );
  }
}
