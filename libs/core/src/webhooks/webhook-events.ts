import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  RedemptionFacts,
  redemptionCompletedPayload,
  redemptionReversedPayload,
} from '@app/domain';
import { WebhookStore } from './webhook-store';

/**
 * What the rest of the service calls when something an institution is told about happens: it
 * asks for the event's deliveries inside its own transaction. Bodies are built by libs/domain and
 * rows written by the WebhookStore; callers build neither.
 */
@Injectable()
export class WebhookEvents {
  constructor(private readonly store: WebhookStore) {}

  redemptionsCompleted(m: EntityManager, facts: RedemptionFacts[], at: Date): Promise<void> {
    return this.store.insertDeliveries(
      m,
      facts.map((r) => ({
        institutionId: r.institutionId,
        redemptionId: r.redemptionId,
        event: 'redemption.completed',
        payload: redemptionCompletedPayload(r, at),
      })),
    );
  }

  redemptionsReversed(
    m: EntityManager,
    reversals: { facts: RedemptionFacts; clawbackMinor: number | null }[],
    at: Date,
  ): Promise<void> {
    return this.store.insertDeliveries(
      m,
      reversals.map(({ facts, clawbackMinor }) => ({
        institutionId: facts.institutionId,
        redemptionId: facts.redemptionId,
        event: 'redemption.reversed',
        payload: redemptionReversedPayload(facts, clawbackMinor, at),
      })),
    );
  }
}
