import { HttpStatus, Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { AuditContext, AuditTrail, ClaimRow, ClaimsService, NewClaim } from '@app/core';
import {
  ClaimDecisionInput,
  ClaimStatus,
  evidenceEventBody,
  maskToken,
  parseTransactionEvent,
} from '@app/domain';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import { piiRejected, rejectPii } from '../common/pii';
import {
  AdminClaimDto,
  AdminClaimsQuery,
  ClaimDto,
  ClaimsQuery,
  FileClaimDto,
  PurchaseEvidenceDto,
} from './claims.dto';

const CLAIM_NOT_FOUND = () =>
  ApiError.notFound('claim_not_found', "No such claim, or another institution's.");

/**
 * The claims API's side of ClaimsService (libs/core): the request read into a claim (the evidence
 * parsed by the one parser of transaction events), the outcomes answered as DTOs or errors.
 */
@Injectable()
export class ClaimsApiService {
  private readonly keyset: Keyset;
  private readonly adminKeyset: Keyset;

  constructor(
    private readonly claims: ClaimsService,
    private readonly audit: AuditTrail,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.keys, 'claims');
    this.adminKeyset = new Keyset(config.keys, 'admin:claims');
  }

  /** 201 with a new claim, 200 with the first one (a repeat); 404 offer_not_found, 422 transaction_not_found. */
  async file(
    institutionId: string,
    dto: FileClaimDto,
  ): Promise<{ created: boolean; claim: ClaimDto }> {
    rejectPii({ cardholder_token: dto.cardholder_token });
    const input: NewClaim = {
      institutionId,
      offerId: dto.offer_id.toLowerCase(),
      transactionRef: dto.transaction_ref,
      cardholderToken: dto.cardholder_token,
      evidence: dto.purchase ? evidence(institutionId, dto, dto.purchase) : null,
      note: dto.note ?? null,
    };
    const r = await this.claims.file(input);
    if (r.kind === 'offer_not_found')
      throw ApiError.notFound(
        'offer_not_found',
        'No such offer, or it is not offered to this institution.',
      );
    if (r.kind === 'transaction_not_found')
      throw new ApiError(
        HttpStatus.UNPROCESSABLE_ENTITY,
        'transaction_not_found',
        'The transaction_ref is not stored; send the purchase evidence (`purchase`) to claim it.',
      );
    return { created: r.created, claim: toDto(r.claim) };
  }

  async get(institutionId: string, id: string): Promise<ClaimDto> {
    const c = await this.claims.get(id, institutionId);
    if (!c) throw CLAIM_NOT_FOUND();
    return toDto(c);
  }

  async list(institutionId: string, q: ClaimsQuery): Promise<Page<ClaimDto>> {
    const limit = q.limit ?? 100;
    const rows = await this.claims.list(
      { institutionId, status: (q.status as ClaimStatus | undefined) ?? null },
      this.keyset.decode(q.cursor),
      limit,
    );
    return this.keyset.page(rows, limit, toDto);
  }

  async adminList(q: AdminClaimsQuery): Promise<Page<AdminClaimDto>> {
    const limit = q.limit ?? 100;
    const rows = await this.claims.list(
      {
        institutionId: q.institution_id ?? null,
        status: (q.status as ClaimStatus | undefined) ?? null,
      },
      this.adminKeyset.decode(q.cursor),
      limit,
    );
    return this.adminKeyset.page(rows, limit, toAdminDto);
  }

  /**
   * An operator's decision: 200 with the decided claim; 404 claim_not_found; 409 claim_decided or
   * the refusing rule's code. Its audit entry (`claim.decide`, the claim as decided) is written in
   * the decision's own transaction (matching's), so neither commits without the other.
   */
  async decide(
    id: string,
    decision: ClaimDecisionInput,
    note: string | null,
    ctx: AuditContext,
  ): Promise<AdminClaimDto> {
    const r = await this.claims.decide(id, decision, note, (m, claim) =>
      this.audit.record(m, ctx, {
        action: 'claim.decide',
        resourceType: 'claim',
        resourceId: id,
        institutionId: claim.institution_id,
        before: { status: 'pending_review' },
        after: toAdminDto(claim),
      }),
    );
    if (r.kind === 'not_found') throw CLAIM_NOT_FOUND();
    if (r.kind === 'claim_decided')
      throw ApiError.conflict(
        'claim_decided',
        `The claim was already decided (${r.claim.status}).`,
      );
    if (r.kind === 'refused')
      throw ApiError.conflict(
        r.code,
        `The rules refuse the reward (${r.code}); the claim stays pending_review.`,
      );
    return toAdminDto(r.claim);
  }
}

/** The evidence read as a transaction event (every field rule of a post), else 400. */
function evidence(
  institutionId: string,
  dto: FileClaimDto,
  p: PurchaseEvidenceDto,
): NewClaim['evidence'] {
  const sent = {
    amount: p.amount,
    currency: p.currency,
    merchant_identifier: p.merchant_identifier,
    merchant_identifier_type: p.merchant_identifier_type,
    transacted_at: p.transacted_at,
  };
  const r = parseTransactionEvent(
    evidenceEventBody(dto.transaction_ref, dto.cardholder_token, sent),
    {
      institutionId,
    },
  );
  if (r.ok) return { sent, event: r.event };
  const details = r.errors.map(({ field, message }) => ({
    field:
      field === 'cardholder_token' || field === 'transaction_ref' ? field : `purchase.${field}`,
    message,
  }));
  if (r.errors.some((e) => e.code === 'pii_rejected')) throw piiRejected(details);
  throw ApiError.validation(details);
}

export function toDto(c: ClaimRow): ClaimDto {
  return {
    id: c.id,
    status: c.status,
    reasons: c.reasons,
    offer_id: c.offer_id,
    transaction_ref: c.transaction_ref,
    cardholder_token_masked: maskToken(c.cardholder_token),
    redemption_id: c.redemption_id,
    source_of_decision: c.decided_by,
    created_at: c.created_at.toISOString(),
    decided_at: c.decided_at ? c.decided_at.toISOString() : null,
    note: c.note,
    decision_note: c.decision_note,
  };
}

function toAdminDto(c: ClaimRow): AdminClaimDto {
  return {
    ...toDto(c),
    institution_id: c.institution_id,
    purchase: (c.purchase as PurchaseEvidenceDto | null) ?? null,
  };
}
