import { HttpStatus, Injectable } from '@nestjs/common';
import { IngestionService, SimulationResult, SimulationService } from '@app/core';
import { FieldError, parseTransactionEvent, TransactionEvent } from '@app/domain';
import { ApiError } from '../common/api-error';
import { piiRejected } from '../common/pii';
import { TransactionLookupRepository } from './transaction-lookup.repository';
import {
  BatchResultDto,
  TransactionAcceptedDto,
  TransactionDuplicateDto,
  TransactionLookupDto,
} from './transactions.dto';

export const MAX_BATCH = 1_000;

export interface RequestContext {
  institutionId: string;
  requestId?: string;
}

/** Public transaction ingestion: validation in the domain, writes and matching in libs/core. */
@Injectable()
export class TransactionsService {
  constructor(
    private readonly ingestion: IngestionService,
    private readonly simulation: SimulationService,
    private readonly lookups: TransactionLookupRepository,
  ) {}

  /** A stored transaction by its reference, else 404 transaction_not_found (never sent, or removed). */
  async lookup(institutionId: string, transactionRef: string): Promise<TransactionLookupDto> {
    const t = await this.lookups.byRef(institutionId, transactionRef);
    if (!t)
      throw ApiError.notFound(
        'transaction_not_found',
        'No transaction with this transaction_ref (never sent, or removed by retention).',
      );
    return {
      id: t.id,
      transaction_ref: t.transaction_ref,
      transaction_type: t.kind,
      status: t.status,
      merchant: t.merchant_id ? { id: t.merchant_id, name: t.merchant_name! } : null,
      redemption_id: t.redemption_id,
      transacted_at: t.transacted_at.toISOString(),
      received_at: t.received_at.toISOString(),
    };
  }

  /** 202 accepted (new) or 200 duplicate (the id first stored under this transaction_ref). */
  async submit(
    ctx: RequestContext,
    body: unknown,
  ): Promise<{ status: number; body: TransactionAcceptedDto | TransactionDuplicateDto }> {
    const event = this.parseOne(ctx, body);
    const r = await this.ingestion.submitOne(ctx.institutionId, event, ctx.requestId);
    return r.duplicate
      ? {
          status: HttpStatus.OK,
          body: { id: r.id, transaction_ref: event.transactionRef, status: 'duplicate' },
        }
      : {
          status: HttpStatus.ACCEPTED,
          body: { id: r.id, transaction_ref: event.transactionRef, status: 'accepted' },
        };
  }

  async submitBatch(ctx: RequestContext, body: unknown): Promise<BatchResultDto> {
    const { items, history } = batchItems(body);
    const events: (TransactionEvent | null)[] = [];
    const invalid: BatchResultDto['invalid'] = [];
    const now = Date.now();
    items.forEach((item, index) => {
      const r = parseTransactionEvent(item, { institutionId: ctx.institutionId, now });
      if (r.ok) events.push(r.event);
      else {
        events.push(null);
        invalid.push({ index, errors: r.errors.map(({ field, message }) => ({ field, message })) });
      }
    });
    const outcome = await this.ingestion.submitMany(
      ctx.institutionId,
      events,
      'batch',
      ctx.requestId,
      { history },
    );
    // Rows the database refused count as invalid items, like those refused before the statement.
    for (const f of outcome.failed)
      invalid.push({ index: f.index, errors: [{ field: 'transaction', message: f.reason }] });
    invalid.sort((a, b) => a.index - b.index);
    return {
      received: items.length,
      accepted: outcome.accepted.length,
      duplicates: outcome.duplicates.length,
      duplicate_indexes: outcome.duplicates,
      invalid,
    };
  }

  simulate(ctx: RequestContext, body: unknown): Promise<SimulationResult> {
    return this.simulation.simulate(ctx.institutionId, this.parseOne(ctx, body));
  }

  /**
   * One event, or the error: PII → 400 pii_rejected; other field errors → 400 validation_failed;
   * only an institution_id of another institution → 403 institution_mismatch.
   */
  private parseOne(ctx: RequestContext, body: unknown): TransactionEvent {
    const r = parseTransactionEvent(body, { institutionId: ctx.institutionId });
    if (r.ok) return r.event;
    throw errorFor(r.errors);
  }
}

function errorFor(errors: FieldError[]): ApiError {
  const details = errors.map(({ field, message }) => ({ field, message }));
  if (errors.some((e) => e.code === 'pii_rejected')) {
    return piiRejected(details);
  }
  // A foreign institution_id is the security signal: it wins over any other field error.
  if (errors.some((e) => e.code === 'institution_mismatch')) {
    return ApiError.forbidden(
      'institution_mismatch',
      'institution_id differs from the institution of the API key.',
    );
  }
  return ApiError.validation(details);
}

/** `{"transactions": [1..1000 items], "history"?: boolean}`, else 400 validation_failed. */
function batchItems(body: unknown): { items: unknown[]; history: boolean } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.validation([
      { field: 'body', message: 'must be a JSON object with a transactions array' },
    ]);
  }
  const extra = Object.keys(body).filter((k) => k !== 'transactions' && k !== 'history');
  if (extra.length)
    throw ApiError.validation(
      extra.map((field) => ({ field, message: 'is not an accepted field' })),
    );
  const history = (body as { history?: unknown }).history;
  if (history !== undefined && typeof history !== 'boolean')
    throw ApiError.validation([{ field: 'history', message: 'must be true or false' }]);
  const items = (body as { transactions?: unknown }).transactions;
  if (!Array.isArray(items) || items.length < 1 || items.length > MAX_BATCH) {
    throw ApiError.validation([
      {
        field: 'transactions',
        message: `must be an array of 1 to ${MAX_BATCH.toLocaleString('en-US')} transaction events`,
      },
    ]);
  }
  return { items, history: history === true };
}
