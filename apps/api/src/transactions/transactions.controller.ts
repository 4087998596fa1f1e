import { Body, Controller, Get, Headers, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiParam,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiKeyPrincipal } from '../auth/auth.types';
import { CurrentKey } from '../auth/current-key.decorator';
import { ApiKeyAuth } from '../auth/scopes.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { SignatureService } from './signature.service';
import {
  BatchResultDto,
  EVENT_EXAMPLES,
  SimulationResultDto,
  TransactionAcceptedDto,
  TransactionBatchDto,
  TransactionDuplicateDto,
  TransactionEventDto,
  TransactionLookupDto,
} from './transactions.dto';
import { TransactionsService } from './transactions.service';

const err = (error: string, message: string, details?: { field: string; message: string }[]) => ({
  error,
  message,
  ...(details ? { details } : {}),
  request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
});

const SIGNATURE_HEADER = {
  name: 'X-Service-Signature',
  required: false,
  description:
    'Optional (earlier published mode): hex HMAC-SHA256 of the raw request body with your signing secret. Verified when present.',
};

const UNAUTHORIZED = ApiUnauthorizedResponse({
  description:
    'Missing or unknown API key (`unauthorized`, `invalid_token`), or an X-Service-Signature that does not match the body (`invalid_signature`)',
  type: ErrorResponseDto,
  examples: {
    invalid_signature: {
      summary: 'Bad signature',
      value: err('invalid_signature', 'X-Service-Signature does not match the request body.'),
    },
  },
});

const BAD_EVENT = ApiBadRequestResponse({
  description:
    'A field is missing or invalid (`validation_failed`, with one detail per field), a token is personal data (`pii_rejected`), or the body is not JSON (`invalid_json`)',
  type: ErrorResponseDto,
  examples: {
    validation_failed: {
      summary: 'Per-field errors',
      value: err('validation_failed', 'The request is invalid.', [
        { field: 'amount', message: 'must be a positive number (major units, such as 12.5)' },
        {
          field: 'merchant_identifier',
          message: 'one of merchant_identifier, card_acceptor_id or merchant_id is required',
        },
      ]),
    },
    pii_rejected: {
      summary: 'An e-mail as cardholder_token',
      value: err(
        'pii_rejected',
        'A token field holds what looks like personal data (an e-mail address or a card number); send opaque tokens only.',
        [
          {
            field: 'cardholder_token',
            message:
              'pii_rejected: looks like an e-mail address; send the opaque HMAC token instead',
          },
        ],
      ),
    },
  },
});

const MISMATCH = ApiForbiddenResponse({
  description:
    'institution_id differs from the API key’s institution (`institution_mismatch`); key revoked (`token_revoked`), expired (`token_expired`) or without the transactions scope (`insufficient_scope`)',
  type: ErrorResponseDto,
  examples: {
    institution_mismatch: {
      summary: 'Another institution',
      value: err(
        'institution_mismatch',
        'institution_id differs from the institution of the API key.',
      ),
    },
  },
});

@ApiTags('Transactions')
@ApiExtraModels(TransactionEventDto)
@Controller('api/v1/transactions')
export class TransactionsController {
  constructor(
    private readonly transactions: TransactionsService,
    private readonly signatures: SignatureService,
  ) {}

  @Post()
  @ApiKeyAuth('transactions')
  @ApiOperation({
    operationId: 'submitTransaction',
    summary: 'Submit one transaction event for matching',
    description:
      'Stores the event (committed before the answer) and queues it for matching against the cardholder’s enrollments. ' +
      'Idempotent per institution on transaction_ref: a repeat (from any source: single, batch or CSV) answers 200 with the original id and `status: duplicate`. ' +
      'Both published payload shapes are accepted. An unresolved merchant is not an error: the event is stored with status `merchant_unresolved`. ' +
      'Refunds (`transaction_type: refund` + `original_transaction_ref`) reverse the purchase’s redemption when the net amount falls below the offer’s min_spend.',
  })
  @ApiHeader(SIGNATURE_HEADER)
  @ApiBody({ type: TransactionEventDto, examples: EVENT_EXAMPLES })
  @ApiResponse({
    status: 202,
    description: 'Stored and queued for matching',
    type: TransactionAcceptedDto,
  })
  @ApiResponse({
    status: 200,
    description: 'This transaction_ref was already stored: the original id',
    type: TransactionDuplicateDto,
  })
  @BAD_EVENT
  @UNAUTHORIZED
  @MISMATCH
  @ApiPayloadTooLargeResponse({
    description: 'Body over 1 MiB (`payload_too_large`)',
    type: ErrorResponseDto,
  })
  async submit(
    @CurrentKey() key: ApiKeyPrincipal,
    @Body() body: unknown,
    @Headers('x-service-signature') signature: string | undefined,
    @Req() req: Request & { rawBody?: Buffer },
    @Res({ passthrough: true }) res: Response,
  ): Promise<TransactionAcceptedDto | TransactionDuplicateDto> {
    await this.signatures.verify(key.institutionId, signature, req.rawBody, String(req.id));
    const result = await this.transactions.submit(
      { institutionId: key.institutionId, requestId: String(req.id) },
      body,
    );
    res.status(result.status);
    return result.body;
  }

  @Post('batch')
  @HttpCode(202)
  @ApiKeyAuth('transactions')
  @ApiOperation({
    operationId: 'submitTransactionBatch',
    summary: 'Submit 1 to 1,000 transaction events',
    description:
      'Each item has the fields of the single endpoint. Items are validated one by one: invalid items and duplicates (already stored, or repeated ' +
      'earlier in the batch: the first occurrence is accepted) are reported by index and do not fail the batch. An item whose institution_id ' +
      'differs from the key’s is an invalid item (`institution_mismatch` in its errors). The valid items are written in one statement. ' +
      'With `"history": true` the items are past purchases: stored (and deduplicated) for new/lapsed audiences and personalization, effective once answered, never matched or rewarded.',
  })
  @ApiHeader(SIGNATURE_HEADER)
  @ApiBody({
    type: TransactionBatchDto,
    examples: {
      batch: {
        summary: 'Three items',
        value: {
          transactions: [
            EVENT_EXAMPLES.current.value,
            EVENT_EXAMPLES.pix.value,
            { ...EVENT_EXAMPLES.current.value, amount: -1, transaction_ref: 'bad-1' },
          ],
        },
      },
      history: {
        summary: 'Past purchases (never matched)',
        value: {
          history: true,
          transactions: [
            {
              ...EVENT_EXAMPLES.current.value,
              transaction_ref: 'hist-2026-05-02-0001',
              transacted_at: '2026-05-02T18:20:00Z',
            },
          ],
        },
      },
    },
  })
  @ApiResponse({
    status: 202,
    type: BatchResultDto,
    description: 'Per-item outcome',
    example: {
      received: 3,
      accepted: 2,
      duplicates: 0,
      duplicate_indexes: [],
      invalid: [
        {
          index: 2,
          errors: [
            { field: 'amount', message: 'must be a positive number (major units, such as 12.5)' },
          ],
        },
      ],
    },
  })
  @ApiBadRequestResponse({
    description:
      '`transactions` missing, empty or over 1,000 items (`validation_failed`), or the body is not JSON (`invalid_json`)',
    type: ErrorResponseDto,
    examples: {
      too_many: {
        summary: 'Over 1,000 items',
        value: err('validation_failed', 'The request is invalid.', [
          { field: 'transactions', message: 'must be an array of 1 to 1,000 transaction events' },
        ]),
      },
    },
  })
  @UNAUTHORIZED
  @ApiPayloadTooLargeResponse({
    description: 'Body over 2 MiB (`payload_too_large`)',
    type: ErrorResponseDto,
  })
  async submitBatch(
    @CurrentKey() key: ApiKeyPrincipal,
    @Body() body: unknown,
    @Headers('x-service-signature') signature: string | undefined,
    @Req() req: Request & { rawBody?: Buffer },
  ): Promise<BatchResultDto> {
    await this.signatures.verify(key.institutionId, signature, req.rawBody, String(req.id));
    return this.transactions.submitBatch(
      { institutionId: key.institutionId, requestId: String(req.id) },
      body,
    );
  }

  @Post('simulate')
  @HttpCode(200)
  @ApiKeyAuth('transactions')
  @ApiOperation({
    operationId: 'simulateTransaction',
    summary: 'Explain whether an event would match, without storing it',
    description:
      'Same payload and validation as POST /api/v1/transactions. Nothing is stored: no transaction, no budget used, no redemption, ' +
      'settlement entry or webhook. Each offer of the merchant (and each enrollment of the cardholder there) is evaluated with the ' +
      'matching rules; `reasons` says why an offer would not match. Reason codes: ' +
      '`not_enrolled`, `enrollment_inactive`, `enrolled_after_purchase`, `merchant_mismatch`, `offer_inactive`, `outside_offer_window`, ' +
      '`currency_mismatch`, `below_min_spend`, `redemption_limit_reached`, `budget_exhausted`, `better_offer_selected`, and from the ' +
      "offer's qualification rules `above_max_spend`, `outside_days`, `outside_hours`, `channel_mismatch`, `network_mismatch`, " +
      '`activation_expired`, `audience_mismatch`. `winner` names the one offer that would get the redemption: the highest institution ' +
      'payout for this purchase, then the higher priority, then the lower offer id.',
  })
  @ApiHeader(SIGNATURE_HEADER)
  @ApiBody({ type: TransactionEventDto, examples: EVENT_EXAMPLES })
  @ApiOkResponse({
    type: SimulationResultDto,
    example: {
      matched: true,
      merchant: { id: '7d1f0c2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f', name: 'Corner Grocer' },
      duplicate: false,
      evaluations: [
        {
          offer_id: '0c6b7a1e-2f3d-4b5c-9d8e-7f6a5b4c3d2e',
          cardholder_offer_id: 'a2b3c4d5-e6f7-4a8b-9c0d-1e2f3a4b5c6d',
          outcome: 'no_match',
          reasons: ['below_min_spend'],
          currency: 'USD',
          cashback_amount: 5,
          institution_payout_amount: 5,
        },
        {
          offer_id: '5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b',
          cardholder_offer_id: 'b3c4d5e6-f7a8-4b9c-8d0e-1f2a3b4c5d6e',
          outcome: 'match',
          reasons: [],
          currency: 'USD',
          cashback_amount: 3,
          institution_payout_amount: 3,
        },
      ],
      winner: {
        offer_id: '5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b',
        cardholder_offer_id: 'b3c4d5e6-f7a8-4b9c-8d0e-1f2a3b4c5d6e',
        currency: 'USD',
        institution_payout_amount: 3,
        rule: 'highest institution payout for this purchase, then higher priority, then lower offer id',
      },
    },
  })
  @BAD_EVENT
  @UNAUTHORIZED
  @MISMATCH
  async simulate(
    @CurrentKey() key: ApiKeyPrincipal,
    @Body() body: unknown,
    @Headers('x-service-signature') signature: string | undefined,
    @Req() req: Request & { rawBody?: Buffer },
  ): Promise<SimulationResultDto> {
    await this.signatures.verify(key.institutionId, signature, req.rawBody, String(req.id));
    return this.transactions.simulate(
      { institutionId: key.institutionId, requestId: String(req.id) },
      body,
    );
  }

  @Get(':transaction_ref')
  @ApiKeyAuth(['transactions', 'claims'])
  @ApiOperation({
    operationId: 'getTransaction',
    summary: 'Look a stored transaction up by its transaction_ref',
    description:
      'For a support desk before it files a claim: whether the purchase arrived, what matching made of it and its redemption. ' +
      'The reference is percent-encoded in the path. Accepted with the `transactions` or the `claims` scope.',
  })
  @ApiParam({
    name: 'transaction_ref',
    example: 'txn-2026-11-21-000042',
    description: 'As sent with the transaction, percent-encoded',
  })
  @ApiOkResponse({
    type: TransactionLookupDto,
    example: {
      id: '5b1e3f0a-7c2d-4e8f-9a6b-1c2d3e4f5a6b',
      transaction_ref: 'txn-2026-11-21-000042',
      transaction_type: 'purchase',
      status: 'matched',
      merchant: { id: '7d1f0c2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f', name: 'Corner Grocer' },
      redemption_id: '9b1d3c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
      transacted_at: '2026-11-21T14:03:00.000Z',
      received_at: '2026-11-21T14:03:02.120Z',
    },
  })
  @ApiNotFoundResponse({
    description: 'Never sent, or removed by retention (`transaction_not_found`)',
    type: ErrorResponseDto,
    example: err(
      'transaction_not_found',
      'No transaction with this transaction_ref (never sent, or removed by retention).',
    ),
  })
  lookup(
    @CurrentKey() key: ApiKeyPrincipal,
    @Param('transaction_ref') transactionRef: string,
  ): Promise<TransactionLookupDto> {
    return this.transactions.lookup(key.institutionId, transactionRef);
  }
}
