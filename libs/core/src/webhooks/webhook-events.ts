import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ClaimFacts,
  claimResolvedPayload,
  ClosedStatementFacts,
  RedemptionFacts,
  ReversalCause,
  redemptionCompletedPayload,
  redemptionReversedPayload,
  redemptionSettledPayload,
  statementClosedPayload,
  webhookTestPayload,
} from '@app/domain';
import { WebhookScheduleRepository } from './webhook-schedule.repository';

/**
 * What the rest of the service calls when something an institution is told about happens: it
 * asks for the event's deliveries inside its own transaction. Bodies are built by libs/domain and
 * rows written by the WebhookScheduleRepository; callers build neither.
 */
@Injectable()
export class WebhookEvents {
  constructor(private readonly schedule: WebhookScheduleRepository) {}

  redemptionsCompleted(m: EntityManager, facts: RedemptionFacts[], at: Date): Promise<string[]> {
    return this.schedule.insertDeliveries(
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
    reversals: { facts: RedemptionFacts; clawbackMinor: number | null; cause: ReversalCause }[],
    at: Date,
  ): Promise<string[]> {
    return this.schedule.insertDeliveries(
      m,
      reversals.map(({ facts, clawbackMinor, cause }) => ({
        institutionId: facts.institutionId,
        redemptionId: facts.redemptionId,
        event: 'redemption.reversed',
        payload: redemptionReversedPayload(facts, clawbackMinor, cause, at),
      })),
    );
  }

  redemptionsSettled(m: EntityManager, facts: RedemptionFacts[], at: Date): Promise<string[]> {
    return this.schedule.insertDeliveries(
      m,
      facts.map((r) => ({
        institutionId: r.institutionId,
        redemptionId: r.redemptionId,
        event: 'redemption.settled',
        payload: redemptionSettledPayload(r, at),
      })),
    );
  }

  /** A `claim.resolved` delivery (an operator decided a pending_review claim), if chosen. */
  claimResolved(m: EntityManager, facts: ClaimFacts, at: Date): Promise<string[]> {
    return this.schedule.insertDeliveries(m, [
      {
        institutionId: facts.institutionId,
        redemptionId: null,
        event: 'claim.resolved',
        payload: claimResolvedPayload(facts, at),
      },
    ]);
  }

  /**
   * `statement.closed` deliveries, in the closing transaction (the institutions that chose the
   * event type only). A statement closes once, so a close run twice asks for none again.
   */
  statementsClosed(
    m: EntityManager,
    statements: ClosedStatementFacts[],
    at: Date,
  ): Promise<string[]> {
    return this.schedule.insertDeliveries(
      m,
      statements.map((s) => ({
        institutionId: s.institutionId,
        redemptionId: null,
        event: 'statement.closed',
        payload: statementClosedPayload(s, at),
      })),
    );
  }

  /** A `webhook.test` delivery for this institution (sent whatever event types it chose). */
  async test(m: EntityManager, institutionId: string, at: Date): Promise<string> {
    const [id] = await this.schedule.insertDeliveries(m, [
      {
        institutionId,
        redemptionId: null,
        event: 'webhook.test',
        payload: webhookTestPayload(institutionId, at),
      },
    ]);
    return id;
  }
}
