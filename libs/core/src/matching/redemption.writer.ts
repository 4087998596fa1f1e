import { Injectable } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { EntityManager } from 'typeorm';
import {
  Allocation,
  completedFacts,
  newRedemption,
  NewRedemption,
  OfferTerms,
  RedemptionSource,
  sourcesOf,
  storedFacts,
} from '@app/domain';
import { WebhookEvents } from '../webhooks/webhook-events';
import { ClaimedRow, MatchingRepository } from './matching.repository';
import type { Reversal } from './reversals';

/**
 * The redemption side of a chunk's writes, in the chunk's transaction: new redemptions with their
 * settlement entries (pending) and `redemption.completed` deliveries; reversals (settlement entry
 * and redemption to `reversed`, clawback, the cause stored on the redemption) and their
 * `redemption.reversed` deliveries. The rows and
 * event facts are built in libs/domain (redemption-records.ts), the bodies by WebhookEvents.
 * `insert` answers the rows it wrote (their ids).
 */
@Injectable()
export class RedemptionWriter {
  constructor(
    private readonly repo: MatchingRepository,
    private readonly webhooks: WebhookEvents,
  ) {}

  async insert(
    m: EntityManager,
    redemptions: readonly Allocation[],
    claimed: ReadonlyMap<string, ClaimedRow>,
    offers: ReadonlyMap<string, OfferTerms>,
    now: Date,
    source: RedemptionSource = 'matching',
  ): Promise<NewRedemption[]> {
    if (!redemptions.length) return [];
    const rows = redemptions.map((r) =>
      newRedemption(
        randomUUID(),
        r,
        claimed.get(r.transactionId)!,
        offers.get(r.offerId)!.merchantId,
      ),
    );
    await this.repo.insertRedemptions(m, rows, source);
    await this.webhooks.redemptionsCompleted(m, rows.map(completedFacts), now);
    return rows;
  }

  async reverse(m: EntityManager, reversals: readonly Reversal[], now: Date): Promise<void> {
    if (!reversals.length) return;
    await this.repo.markReversed(
      m,
      reversals.map((r) => ({
        redemptionId: r.row.redemption_id,
        clawback: r.clawback,
        reason: r.cause.reason,
        transactionRef: r.cause.transactionRef,
      })),
      sourcesOf('reversed'),
    );
    await this.webhooks.redemptionsReversed(
      m,
      reversals.map(({ row, clawback, cause }) => ({
        facts: storedFacts(row),
        clawbackMinor: clawback,
        cause,
      })),
      now,
    );
  }
}
