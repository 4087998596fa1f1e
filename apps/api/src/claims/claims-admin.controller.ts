import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import { CLAIM_BARRIERS, ClaimDecisionInput, NO_MATCH_REASONS } from '@app/domain';
import type { AuditContext } from '@app/core';
import { Audit, OperatorAuth, OperatorCan } from '../admin/operator.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Page } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import { ClaimsApiService } from './claims-api.service';
import { AdminClaimDto, AdminClaimPageDto, AdminClaimsQuery, ClaimDecisionDto } from './claims.dto';

/** A decision the claim's state or the rules refuse: `claim_decided`, or the refusing rule's code. */
export class ClaimConflictDto {
  @ApiProperty({
    enum: ['claim_decided', 'transaction_not_found', ...CLAIM_BARRIERS, ...NO_MATCH_REASONS],
    example: 'budget_exhausted',
  })
  error: string;
  @ApiProperty({
    example: 'The rules refuse the reward (budget_exhausted); the claim stays pending_review.',
  })
  message: string;
  @ApiProperty({ example: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21' }) request_id: string;
}

@ApiTags('Admin')
@OperatorAuth()
@Controller('admin/api/v1/claims')
export class ClaimsAdminController {
  constructor(private readonly claims: ClaimsApiService) {}

  @Get()
  @ApiOperation({
    operationId: 'adminListClaims',
    summary:
      'Claims of every institution, newest first (keyset paged); `status=pending_review` is the review queue',
  })
  @ApiOkResponse({ type: AdminClaimPageDto })
  list(@Query() q: AdminClaimsQuery): Promise<Page<AdminClaimDto>> {
    return this.claims.adminList(q);
  }

  @Post(':id/decision')
  @OperatorCan('support')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminDecideClaim',
    summary: 'Approve or reject a pending_review claim',
    description:
      'Approving stores the purchase evidence as the transaction of the claimed transaction_ref (source `claim`: a later post of it by the bank is a duplicate) ' +
      'and rewards it through matching, as any claim is decided: `approved`, `rewarded_other_offer`, or `already_rewarded` when the bank posted it meanwhile and it was rewarded. ' +
      "Budget and limits still hold: a refusal is 409 with the rule's code as `error` and the claim stays pending_review. " +
      'The `claim.resolved` webhook event is recorded with the decision (for institutions that chose it).',
  })
  @ApiOkResponse({ type: AdminClaimDto })
  @ApiNotFoundResponse({ description: 'No such claim (`claim_not_found`)', type: ErrorResponseDto })
  @ApiConflictResponse({
    description:
      "The claim is no longer pending_review (`claim_decided`), or the rules refuse the reward (the rule's code: `budget_exhausted`, `redemption_limit_reached`, …)",
    type: ClaimConflictDto,
    examples: {
      claim_decided: {
        summary: 'Decided before',
        value: {
          error: 'claim_decided',
          message: 'The claim was already decided (approved).',
          request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
        },
      },
      budget_exhausted: {
        summary: 'Budget spent',
        value: {
          error: 'budget_exhausted',
          message:
            'The rules refuse the reward (budget_exhausted); the claim stays pending_review.',
          request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
        },
      },
    },
  })
  decide(
    @Param('id', uuidPipe) id: string,
    @Body() dto: ClaimDecisionDto,
    @Audit() ctx: AuditContext,
  ): Promise<AdminClaimDto> {
    return this.claims.decide(id, dto.decision as ClaimDecisionInput, dto.note ?? null, ctx);
  }
}
