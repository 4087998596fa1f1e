import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { prepared } from '@app/db';
import type { GoalContribution, GoalState, RoundKey } from '@app/domain';
import { chainRefundedSql } from './card-lifecycle.repository';
import { refundedSumSql } from './matching.repository';
import { REVERSAL_ROW_COLUMNS, ReversalRow } from './reversal-row';
import { byKeySql, keysOfIds } from '../ingestion/transaction-store';

/**
 * The transactions whose contributions a refund of the reviewed ids ($1) may change: the ids
 * themselves and, for a card chain's record, the chain's clearing (a chain counts toward goals
 * on its clearing, and a refund may name the chain's authorization). Primary keys, card_chain's
 * (institution_id, authorization_ref) and the clearing's key (transaction_key, by reference).
 * Matching and simulate read contributions through it alike.
 */
export const COUNTED_IDS = `
  counted_ids AS (
    SELECT x.id FROM unnest($1::uuid[]) AS x(id)
    UNION
    SELECT cl.transaction_id FROM ${keysOfIds()}
      CROSS JOIN LATERAL (${byKeySql('a', 'k')} AND a.kind IN ('authorization', 'clearing') OFFSET 0) a
      JOIN card_chain ch ON ch.institution_id = a.institution_id
       AND ch.authorization_ref = CASE WHEN a.kind = 'authorization' THEN a.transaction_ref ELSE a.original_transaction_ref END
      CROSS JOIN LATERAL (
        SELECT transaction_id FROM transaction_key
         WHERE institution_id = ch.institution_id AND transaction_ref = ch.clearing_ref OFFSET 0
      ) cl)`;

/** A purchase counted toward a goal offer's enrollment, with what its refunds need. */
export interface CountedRow {
  transaction_id: string;
  cardholder_offer_id: string;
  round: number;
  units: string;
  spend: string;
  goal_type: string;
  goal_target: string;
  min_spend: string;
  currency: string;
  amount: string;
  refunded: string;
  /** Totals of the purchase's round (all its counted purchases). */
  round_units: string;
  round_spend: string;
  /** The refs a refund of the purchase names: its own, and a clearing's chain's authorization. */
  institution_id: string;
  transaction_ref: string;
  authorization_ref: string | null;
}

/**
 * The statements of goal offers' progress, set-based (one statement per chunk whatever its size),
 * run inside the matching chunk's transaction after the enrollments are locked (in id order):
 * that lock is what serializes every change to one enrollment's rounds.
 */
@Injectable()
export class GoalProgressRepository {
  /** The enrollments these purchases were counted toward (primary key of goal_contribution). */
  enrollmentsCounting(
    m: EntityManager,
    purchaseIds: string[],
  ): Promise<{ id: string; offer_id: string }[]> {
    if (!purchaseIds.length) return Promise.resolve([]);
    return m.query(
      prepared(`WITH ${COUNTED_IDS}
       SELECT DISTINCT co.id, co.offer_id
         FROM counted_ids JOIN goal_contribution g ON g.transaction_id = counted_ids.id
         JOIN cardholder_offer co ON co.id = g.cardholder_offer_id`),
      [purchaseIds],
    );
  }

  /**
   * The contributions of these purchases (and of their card chain's clearing) to offers that
   * still have a goal, with the purchase's net amount inputs (a clearing: the cleared amount less
   * the refunds naming either of the chain's refs), the offer's goal and min_spend, and the totals
   * of each contribution's round (goal_contribution_round_idx).
   */
  counted(m: EntityManager, purchaseIds: string[]): Promise<CountedRow[]> {
    if (!purchaseIds.length) return Promise.resolve([]);
    return m.query(
      prepared(`WITH ${COUNTED_IDS}
       SELECT g.transaction_id, g.cardholder_offer_id, g.round, g.units::text AS units, g.spend::text AS spend,
              o.goal_type, o.goal_target::text AS goal_target, o.min_spend::text AS min_spend, o.currency,
              COALESCE(c.cleared_amount, t.amount)::text AS amount,
              (CASE WHEN c.institution_id IS NULL THEN ${refundedSumSql('t.institution_id', 't.transaction_ref')}
                    ELSE ${chainRefundedSql} END)::text AS refunded,
              s.units::text AS round_units, s.spend::text AS round_spend,
              t.institution_id, t.transaction_ref, c.authorization_ref
         FROM counted_ids
         JOIN goal_contribution g ON g.transaction_id = counted_ids.id
         CROSS JOIN LATERAL (SELECT * FROM transaction_key WHERE transaction_id = g.transaction_id OFFSET 0) tk
         CROSS JOIN LATERAL (${byKeySql('t', 'tk')} OFFSET 0) t
         LEFT JOIN card_chain c ON t.kind = 'clearing' AND c.institution_id = t.institution_id
              AND c.authorization_ref = t.original_transaction_ref
         JOIN cardholder_offer co ON co.id = g.cardholder_offer_id
         JOIN offer o ON o.id = co.offer_id
         CROSS JOIN LATERAL (
           SELECT sum(x.units) AS units, sum(x.spend) AS spend FROM goal_contribution x
            WHERE x.cardholder_offer_id = g.cardholder_offer_id AND x.round = g.round) s
        WHERE o.goal_type IS NOT NULL
        ORDER BY t.transacted_at, g.transaction_id, g.cardholder_offer_id`),
      [purchaseIds],
    );
  }

  /**
   * The live redemptions of these goal rounds (redemption_enrollment_idx), as reversal rows, each
   * with the target its round was rewarded under (the offer's target for a row that has none).
   */
  liveRoundRedemptions(
    m: EntityManager,
    rounds: RoundKey[],
    reversibleStatuses: readonly string[],
  ): Promise<(ReversalRow & { goal_round: number; goal_target: string })[]> {
    if (!rounds.length) return Promise.resolve([]);
    return m.query(
      prepared(`SELECT t.id AS transaction_id, t.amount::text AS amount, '0' AS refunded,
              ${REVERSAL_ROW_COLUMNS}, o.min_spend,
              COALESCE(r.goal_target, o.goal_target)::text AS goal_target
         FROM unnest($1::uuid[], $2::int[]) AS k(cardholder_offer_id, round)
         JOIN redemption r ON r.cardholder_offer_id = k.cardholder_offer_id AND r.goal_round = k.round
         CROSS JOIN LATERAL (SELECT * FROM transaction_key WHERE transaction_id = r.transaction_id OFFSET 0) tk
         CROSS JOIN LATERAL (${byKeySql('t', 'tk')} OFFSET 0) t
         JOIN offer o ON o.id = r.offer_id
        WHERE r.status = ANY($3::text[])`),
      [rounds.map((k) => k.enrollmentId), rounds.map((k) => k.round), reversibleStatuses],
    );
  }

  /** New contributions; a purchase counts once per enrollment (a rerun adds nothing). */
  async insertContributions(m: EntityManager, rows: GoalContribution[]): Promise<void> {
    if (!rows.length) return;
    await m.query(
      prepared(`INSERT INTO goal_contribution (institution_id, transaction_id, cardholder_offer_id, round, units, spend)
       SELECT co.institution_id, r.*
         FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::bigint[], $5::bigint[])
              AS r(transaction_id, cardholder_offer_id, round, units, spend)
         JOIN cardholder_offer co ON co.id = r.cardholder_offer_id
       ON CONFLICT (transaction_id, cardholder_offer_id, institution_id) DO NOTHING`),
      [
        rows.map((r) => r.transactionId),
        rows.map((r) => r.enrollmentId),
        rows.map((r) => r.round),
        rows.map((r) => r.units),
        rows.map((r) => r.spend),
      ],
    );
  }

  /** What refunds left of counted purchases. */
  async updateContributions(
    m: EntityManager,
    rows: { transactionId: string; enrollmentId: string; units: number; spend: number }[],
  ): Promise<void> {
    if (!rows.length) return;
    await m.query(
      prepared(`UPDATE goal_contribution c SET units = d.units, spend = d.spend
         FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::bigint[]) AS d(transaction_id, cardholder_offer_id, units, spend)
        WHERE c.transaction_id = d.transaction_id AND c.cardholder_offer_id = d.cardholder_offer_id`),
      [
        rows.map((r) => r.transactionId),
        rows.map((r) => r.enrollmentId),
        rows.map((r) => r.units),
        rows.map((r) => r.spend),
      ],
    );
  }

  /** A reversed round's purchases move to the open round they now count in. */
  async carryRounds(
    m: EntityManager,
    rows: { enrollmentId: string; round: number; to: number }[],
  ): Promise<void> {
    if (!rows.length) return;
    await m.query(
      prepared(`UPDATE goal_contribution c SET round = d.to_round
         FROM unnest($1::uuid[], $2::int[], $3::int[]) AS d(cardholder_offer_id, round, to_round)
        WHERE c.cardholder_offer_id = d.cardholder_offer_id AND c.round = d.round`),
      [rows.map((r) => r.enrollmentId), rows.map((r) => r.round), rows.map((r) => r.to)],
    );
  }

  /** The open round of each enrollment whose progress changed. */
  async setStates(m: EntityManager, states: Map<string, GoalState>): Promise<void> {
    if (!states.size) return;
    const list = [...states];
    await m.query(
      prepared(`UPDATE cardholder_offer c SET goal_round = d.round, goal_progress = d.progress, goal_spend = d.spend, updated_at = now()
         FROM unnest($1::uuid[], $2::int[], $3::bigint[], $4::bigint[]) AS d(id, round, progress, spend)
        WHERE c.id = d.id`),
      [
        list.map(([id]) => id),
        list.map(([, s]) => s.round),
        list.map(([, s]) => s.progress),
        list.map(([, s]) => s.spend),
      ],
    );
  }
}
