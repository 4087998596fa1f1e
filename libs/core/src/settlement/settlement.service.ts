import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PROGRAM_DEFAULTS, sourcesOf, storedFacts, SYSTEM_ACTOR } from '@app/domain';
import { AuditContext, AuditTrail } from '../audit/audit-trail.service';
import { WebhookEvents } from '../webhooks/webhook-events';
import { SettlementRepository } from './settlement.repository';

export interface SettlementRunResult {
  runId: string;
  settled: number;
}

/** Entries settled per statement: bounded transactions and lock sets, however large the backlog. */
const BATCH = 5_000;

/**
 * Settles pending entries whose hold has passed: entry created_at + the program's
 * settlement_hold_days ≤ as_of; a card chain's redemption (docs/transactions.md) only once its
 * chain cleared, the hold counting from its first clearing. The transition is guarded by the state machine (only from the
 * statuses that may become `settled`), the settlement entry and its redemption move together, and
 * entries another run holds are skipped, so concurrent or repeated runs never settle twice. Uses
 * the partial index on pending entries.
 */
@Injectable()
export class SettlementService {
  private readonly logger = new Logger('Settlement');

  constructor(
    private readonly db: DataSource,
    private readonly repo: SettlementRepository,
    private readonly webhooks: WebhookEvents,
    private readonly audit: AuditTrail,
  ) {}

  /**
   * The run's audit entry (`settlement.run`; actor `system` for a scheduled run) commits with its
   * settled count, after the batches.
   */
  async run(
    asOf: Date,
    trigger: 'schedule' | 'operator',
    ctx: AuditContext = { actor: SYSTEM_ACTOR, requestId: null },
  ): Promise<SettlementRunResult> {
    const runId = await this.repo.startRun(asOf, trigger);
    let settled = 0;
    for (;;) {
      // The batch and its redemption.settled deliveries commit together.
      const n = await this.db.transaction(async (m) => {
        const rows = await this.repo.settleDue(
          {
            asOf,
            runId,
            fromStatuses: sourcesOf('settled'),
            limit: BATCH,
            defaultHoldDays: PROGRAM_DEFAULTS.settlementHoldDays,
          },
          m,
        );
        const settledNow = rows.filter((r) => r.redemption_settled);
        await this.webhooks.redemptionsSettled(
          m,
          settledNow.map((r) =>
            storedFacts({
              redemption_id: r.redemption_id,
              institution_id: r.institution_id!,
              offer_id: r.offer_id!,
              cardholder_token: r.cardholder_token!,
              institution_payout_amount: r.institution_payout_amount!,
              currency: r.currency!,
              transaction_ref: r.transaction_ref!,
              purchase_amount: r.purchase_amount!,
              merchant_funded_amount: r.merchant_funded_amount!,
              goal_round: r.goal_round,
            }),
          ),
          new Date(),
        );
        return rows.length;
      });
      settled += n;
      if (n < BATCH) break;
    }
    await this.db.transaction(async (m) => {
      await this.repo.finishRun(runId, settled, m);
      await this.audit.record(m, ctx, {
        action: 'settlement.run',
        resourceType: 'settlement_run',
        resourceId: runId,
        after: { as_of: asOf.toISOString(), trigger, settled },
      });
    });
    this.logger.log(
      { runId, trigger, asOf: asOf.toISOString(), settled },
      'settlement run finished',
    );
    return { runId, settled };
  }
}
