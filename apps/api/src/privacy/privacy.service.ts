import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { DataSource } from 'typeorm';
import { AuditTrail, ErasureRepository, ErasureRow } from '@app/core';
import { noneErased, toMajor } from '@app/domain';
import {
  ERASURE_JOB_NAME,
  ERASURE_JOB_OPTIONS,
  ErasureJob,
  jobIds,
  ProducerQueue,
  QUEUES,
} from '@app/queue';
import { ApiKeyPrincipal } from '../auth/auth.types';
import { ApiError } from '../common/api-error';
import type { CardholderExportDto, ErasureAcceptedDto, ErasureDto } from './privacy.dto';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The right to erasure and of access (docs/privacy.md). An erasure request is stored, then handed
 * to the worker's privacy queue after commit; when Redis is unreachable the worker's relay finds
 * it. The export reads what is stored about a cardholder.
 */
@Injectable()
export class PrivacyService implements OnModuleDestroy {
  private readonly logger = new Logger('Privacy');
  private readonly producer: ProducerQueue<ErasureJob>;

  constructor(
    private readonly db: DataSource,
    private readonly repo: ErasureRepository,
    private readonly audit: AuditTrail,
    config: AppConfig,
  ) {
    this.producer = new ProducerQueue<ErasureJob>(QUEUES.privacy, config.redis, config.queuePrefix);
  }

  async requestErasure(
    key: ApiKeyPrincipal,
    token: string,
    requestId?: string,
  ): Promise<ErasureAcceptedDto> {
    const requestedBy = `API key ${key.keyHint} (${key.keyName})`;
    // The request and its audit entry (the institution's security activity) commit together.
    const row = await this.db.transaction(async (m) => {
      const r = await this.repo.request(m, key.institutionId, token, requestedBy);
      await this.audit.record(
        m,
        { actor: { type: 'staff', id: null, email: null }, requestId: requestId ?? null },
        {
          action: 'cardholder.erasure_requested',
          resourceType: 'cardholder_erasure',
          resourceId: r.id,
          institutionId: key.institutionId,
          after: { erasure_id: r.id, requested_by: requestedBy },
        },
      );
      return r;
    });
    try {
      if (!(await this.producer.ready(1_000))) throw new Error(`redis ${this.producer.status}`);
      await this.producer.within((q) =>
        q.add(
          ERASURE_JOB_NAME,
          { erasureId: row.id, requestId },
          { ...ERASURE_JOB_OPTIONS, jobId: jobIds.erasure(row.id) },
        ),
      );
    } catch (e) {
      this.logger.warn(
        { err: (e as Error).message, erasureId: row.id, requestId },
        'erasure not queued; the worker relay will pick it up',
      );
    }
    return { id: row.id, status: row.status };
  }

  async erasure(institutionId: string, id: string): Promise<ErasureDto> {
    const row = await this.repo.find(institutionId, id);
    if (!row) throw ApiError.notFound('erasure_not_found', 'No such erasure.');
    return toErasureDto(row);
  }

  async export(institutionId: string, token: string): Promise<CardholderExportDto> {
    const r = await this.repo.export(institutionId, token);
    return {
      cardholder_token: token,
      generated_at: new Date().toISOString(),
      enrollments: r.enrollments.map((e) => ({
        id: e.id,
        offer_id: e.offer_id,
        status: e.status,
        card_token: e.card_token,
        redemption_count: e.redemption_count,
        added_at: e.added_at.toISOString(),
        goal: e.goal
          ? {
              round: e.goal_round,
              progress: Number(e.goal_progress),
              spend: Number(e.goal_spend),
            }
          : null,
      })),
      transactions: r.transactions.map((t) => ({
        id: t.id,
        transaction_ref: t.transaction_ref,
        transaction_type: t.kind,
        card_token: t.instrument_token,
        instrument_type: t.instrument_type,
        merchant_id: t.merchant_id,
        merchant_identifier: t.merchant_identifier,
        merchant_identifier_type: t.merchant_identifier_type,
        merchant_descriptor: t.merchant_descriptor,
        mcc: t.mcc,
        network: t.network,
        channel: t.channel,
        amount: decimalText(t.amount),
        currency: t.currency?.trim() ?? null,
        transacted_at: t.transacted_at.toISOString(),
        received_at: t.received_at.toISOString(),
        status: t.status,
        original_transaction_ref: t.original_transaction_ref,
        source: t.source,
        history: t.history,
      })),
      redemptions: r.redemptions.map((x) => ({
        id: x.id,
        offer_id: x.offer_id,
        transaction_id: x.transaction_id,
        currency: x.currency,
        purchase_amount: toMajor(x.purchase_amount, x.currency),
        cashback_amount: toMajor(x.cashback_amount, x.currency),
        institution_payout_amount: toMajor(x.institution_payout_amount, x.currency),
        status: x.status,
        created_at: x.created_at.toISOString(),
        settled_at: iso(x.settled_at),
        reversed_at: iso(x.reversed_at),
      })),
      engagement_events: r.events.map((e) => ({
        kind: e.kind,
        offer_id: e.offer_id,
        occurred_at: e.occurred_at.toISOString(),
      })),
      webhook_deliveries: r.deliveries.map((d) => ({
        id: d.id,
        event: d.event,
        status: d.status,
        created_at: d.created_at.toISOString(),
        delivered_at: iso(d.delivered_at),
        payload: d.payload,
      })),
    };
  }

  async onModuleDestroy(): Promise<void> {
    await this.producer.close();
  }
}

/** numeric(20,4) as text without trailing zeros: 25.5000 → 25.5, 12.0000 → 12. */
function decimalText(amount: string): string {
  return amount.includes('.') ? amount.replace(/\.?0+$/, '') : amount;
}

export function toErasureDto(row: ErasureRow): ErasureDto {
  return {
    id: row.id,
    status: row.status,
    requested_at: row.requested_at.toISOString(),
    completed_at: iso(row.completed_at),
    erased: { ...noneErased(), ...(row.erased ?? {}) },
  };
}
