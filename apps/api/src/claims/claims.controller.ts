import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiKeyPrincipal } from '../auth/auth.types';
import { CurrentKey } from '../auth/current-key.decorator';
import { ApiKeyAuth } from '../auth/scopes.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Page } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import { ClaimsApiService } from './claims-api.service';
import { CLAIM_EXAMPLE, ClaimDto, ClaimPageDto, ClaimsQuery, FileClaimDto } from './claims.dto';

const err = (error: string, message: string) => ({
  error,
  message,
  request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
});

@ApiTags('Claims')
@ApiKeyAuth('claims')
@ApiBadRequestResponse({
  description:
    'A field is missing or invalid, including the purchase evidence by the rules of a posted transaction (`validation_failed`), a token is personal data (`pii_rejected`), a bad cursor',
  type: ErrorResponseDto,
})
@Controller('api/v1/claims')
export class ClaimsController {
  constructor(private readonly claims: ClaimsApiService) {}

  @Post()
  @ApiOperation({
    operationId: 'fileClaim',
    summary: 'Claim a missing reward for a purchase; decided at once',
    description:
      'Decided by the same evaluation as matching and simulate. A stored purchase is matched again as it is now (its merchant may have been mapped since): ' +
      '`approved` (the claimed offer rewarded it, committed before the answer, `redemption.completed` sent as for any redemption), ' +
      '`rewarded_other_offer` (another offer won: the better reward), `already_rewarded` (a redemption existed before the claim) or ' +
      '`rejected` with `reasons` (`not_a_purchase`, `historical_transaction`, `cardholder_mismatch`, `awaiting_clearing`, `claim_window_expired`, ' +
      "or simulate's codes such as `not_enrolled`, `below_min_spend`, `holdout`). A purchase that is not stored is judged on `purchase`: " +
      '`pending_review` for an operator when the rules are met, else `rejected`. ' +
      'One claim per (offer, transaction_ref): a repeat answers 200 with the first claim (one the rules rejected is evaluated again, same id).',
  })
  @ApiBody({
    type: FileClaimDto,
    examples: {
      stored: {
        summary: 'A stored purchase',
        value: {
          cardholder_token: 'chk_8f14e45fceea167a5a36dedd4bea2543',
          offer_id: '0e4c2b1a-7d6f-4e5a-9b8c-1d2e3f4a5b6c',
          transaction_ref: 'txn-2026-11-21-000123',
        },
      },
      evidence: {
        summary: 'A purchase that never reached the service, with evidence',
        value: {
          cardholder_token: 'chk_8f14e45fceea167a5a36dedd4bea2543',
          offer_id: '0e4c2b1a-7d6f-4e5a-9b8c-1d2e3f4a5b6c',
          transaction_ref: 'txn-2026-11-20-000987',
          purchase: {
            amount: 42.9,
            currency: 'USD',
            merchant_identifier: 'CA-000123456',
            merchant_identifier_type: 'card_acceptor',
            transacted_at: '2026-11-20T18:42:00Z',
          },
          note: 'Cardholder called on 2026-11-22; receipt seen.',
        },
      },
    },
  })
  @ApiCreatedResponse({
    type: ClaimDto,
    description: 'A new claim, whatever its outcome',
    example: CLAIM_EXAMPLE,
  })
  @ApiOkResponse({
    type: ClaimDto,
    description: 'The same (offer, transaction_ref) was claimed before: that claim',
    example: CLAIM_EXAMPLE,
  })
  @ApiNotFoundResponse({
    description:
      'Unknown offer, or one not offered to your institution (`offer_not_found`); nothing is stored',
    type: ErrorResponseDto,
    example: err('offer_not_found', 'No such offer, or it is not offered to this institution.'),
  })
  @ApiUnprocessableEntityResponse({
    description:
      'The transaction_ref is not stored and no `purchase` evidence was sent (`transaction_not_found`); nothing is stored',
    type: ErrorResponseDto,
    example: err(
      'transaction_not_found',
      'The transaction_ref is not stored; send the purchase evidence (`purchase`) to claim it.',
    ),
  })
  async file(
    @CurrentKey() key: ApiKeyPrincipal,
    @Body() dto: FileClaimDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ClaimDto> {
    const r = await this.claims.file(key.institutionId, dto);
    res.status(r.created ? 201 : 200);
    return r.claim;
  }

  @Get()
  @ApiOperation({
    operationId: 'listClaims',
    summary: "The institution's claims, newest first (keyset pages)",
  })
  @ApiOkResponse({ type: ClaimPageDto })
  list(@CurrentKey() key: ApiKeyPrincipal, @Query() q: ClaimsQuery): Promise<Page<ClaimDto>> {
    return this.claims.list(key.institutionId, q);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getClaim', summary: 'One claim' })
  @ApiOkResponse({ type: ClaimDto, example: CLAIM_EXAMPLE })
  @ApiNotFoundResponse({
    description: "No such claim, or another institution's (`claim_not_found`)",
    type: ErrorResponseDto,
    example: err('claim_not_found', "No such claim, or another institution's."),
  })
  get(@CurrentKey() key: ApiKeyPrincipal, @Param('id', uuidPipe) id: string): Promise<ClaimDto> {
    return this.claims.get(key.institutionId, id);
  }
}
