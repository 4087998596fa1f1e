import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { MAX_AMOUNT, MIN_POSITIVE_AMOUNT } from '../docs/validator-bounds';
import {
  INSTRUMENT_TYPES,
  MERCHANT_IDENTIFIER_TYPES,
  NO_MATCH_REASONS,
  REWARD_ON,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
} from '@app/domain';

/**
 * Documentation of the transaction event (both published shapes). Validation is done by
 * parseTransactionEvent (libs/domain), shared by the single, batch, simulate and CSV paths.
 */
export class TransactionEventDto {
  @ApiPropertyOptional({
    format: 'uuid',
    example: '0b9e8d4c-1f2a-4b3c-8d4e-5f6a7b8c9d0e',
    description:
      'Optional. Must equal the API key’s institution (else 403 `institution_mismatch`; an invalid item in a batch).',
  })
  institution_id?: string;

  @ApiProperty({
    example: 'chk_7Hq2LmP9xQ',
    maxLength: 256,
    description:
      'Opaque, stable per customer: a keyed HMAC made by the institution, never a plain hash, e-mail or customer id.',
  })
  cardholder_token: string;

  @ApiPropertyOptional({
    example: 'ctk_4f9a2b7c1d',
    maxLength: 256,
    description:
      'Tokenized card number (card-rail alias of instrument_token). Send this or instrument_token.',
  })
  card_token?: string;

  @ApiPropertyOptional({
    example: 'wlt_a81c33',
    maxLength: 256,
    description: 'Card token, or wallet/account token. Send this or card_token.',
  })
  instrument_token?: string;

  @ApiPropertyOptional({
    enum: INSTRUMENT_TYPES,
    example: 'card',
    description: 'Defaults to `card` when card_token is sent.',
  })
  instrument_type?: string;

  @ApiPropertyOptional({
    example: 'DEMO-CA-GREENGROCER',
    maxLength: 200,
    description:
      'Preferred. The merchant identifier carried by your record; resolved to the service merchant. The examples use the demo merchants (`npm run demo` prints them).',
  })
  merchant_identifier?: string;

  @ApiPropertyOptional({
    enum: MERCHANT_IDENTIFIER_TYPES,
    default: 'card_acceptor',
    example: 'card_acceptor',
  })
  merchant_identifier_type?: string;

  @ApiPropertyOptional({
    example: 'DEMO-CA-GREENGROCER',
    maxLength: 200,
    description: 'Legacy alias: card-acceptor id (ISO 8583 field 42), implies type card_acceptor.',
  })
  card_acceptor_id?: string;

  @ApiPropertyOptional({
    example: '5411',
    pattern: '^\\d{4}$',
    description:
      'Merchant category code (4 digits). Reserved for enrichment; not used for matching.',
  })
  mcc?: string;

  @ApiPropertyOptional({
    example: 'GROCER #12 SAO PAULO',
    maxLength: 200,
    description: 'Reserved for fallback resolution; not matched on.',
  })
  merchant_descriptor?: string;

  @ApiPropertyOptional({ example: 'visa', maxLength: 50 })
  network?: string;

  @ApiPropertyOptional({
    enum: ['in_store', 'online'],
    example: 'online',
    description:
      'Where the purchase was made. Offers restricted to channels match only a transaction that sends one of theirs.',
  })
  channel?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    example: '7d1f0c2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
    description:
      'Service merchant id, only if you already resolved it. Used when it exists; otherwise the identifier is.',
  })
  merchant_id?: string;

  @ApiProperty({
    example: 42.9,
    minimum: MIN_POSITIVE_AMOUNT,
    maximum: MAX_AMOUNT,
    description: 'Positive, in major units of the offer’s currency, at most 4 decimal places.',
  })
  amount: number;

  @ApiPropertyOptional({
    example: 'USD',
    pattern: '^[A-Z]{3}$',
    description: 'ISO 4217 (earlier shape). When sent it must equal the offer’s currency to match.',
  })
  currency?: string;

  @ApiProperty({
    example: 'txn-2026-11-21-000042',
    maxLength: 200,
    description:
      'Your unique reference: the idempotency key, unique per institution. Earlier shape: `transaction_id`.',
  })
  transaction_ref: string;

  @ApiPropertyOptional({
    deprecated: true,
    example: 'txn-2026-11-21-000042',
    description: 'Earlier shape of transaction_ref.',
  })
  transaction_id?: string;

  @ApiProperty({
    example: '2026-11-21T10:15:00Z',
    format: 'date-time',
    description:
      'ISO 8601 with a time zone. Earlier shape: `timestamp`. A purchase is matched on this time however late it arrives.',
  })
  transacted_at: string;

  @ApiPropertyOptional({
    deprecated: true,
    example: '2026-11-21T10:15:00Z',
    format: 'date-time',
    description: 'Earlier shape of transacted_at.',
  })
  timestamp?: string;

  @ApiPropertyOptional({
    enum: TRANSACTION_TYPES,
    default: 'purchase',
    example: 'purchase',
    description:
      'A refund reverses the purchase’s redemption when the net amount falls below the offer’s min_spend. ' +
      'The card lifecycle (docs/transactions.md): `authorization` at the swipe, then its `clearing` (the settled amount) or its void (`authorization_reversal`); the program’s reward_on decides which record is rewarded. A `clearing` without original_transaction_ref is a purchase.',
  })
  transaction_type?: string;

  @ApiPropertyOptional({
    example: 'txn-2026-11-20-000017',
    description:
      'Required for refunds (the transaction_ref of the purchase refunded, or of the clearing or authorization of a card purchase) and for `authorization_reversal` (its authorization’s transaction_ref); optional for `clearing` (its authorization’s transaction_ref). Refused otherwise.',
  })
  original_transaction_ref?: string;
}

export class TransactionAcceptedDto {
  @ApiProperty({ format: 'uuid', example: '5b1e3f0a-7c2d-4e8f-9a6b-1c2d3e4f5a6b' }) id: string;
  @ApiProperty({ example: 'txn-2026-11-21-000042' }) transaction_ref: string;
  @ApiProperty({ enum: ['accepted'], example: 'accepted' }) status: 'accepted';
}

export class TransactionDuplicateDto {
  @ApiProperty({
    format: 'uuid',
    example: '5b1e3f0a-7c2d-4e8f-9a6b-1c2d3e4f5a6b',
    description: 'The id of the transaction first stored with this reference.',
  })
  id: string;
  @ApiProperty({ example: 'txn-2026-11-21-000042' }) transaction_ref: string;
  @ApiProperty({ enum: ['duplicate'], example: 'duplicate' }) status: 'duplicate';
}

export class TransactionBatchDto {
  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: 1000,
    description:
      'Transaction events. Each item is checked on its own: an item that is not a valid event (even not an object) is reported in `invalid` by its index and never refuses the batch, so the item schema admits any value.',
    example: [
      {
        cardholder_token: 'chk_7Hq2LmP9xQ',
        card_token: 'ctk_4f9a2b7c1d',
        merchant_identifier: 'DEMO-CA-GREENGROCER',
        amount: 42.9,
        transaction_ref: 'txn-2026-11-21-000042',
        transacted_at: '2026-11-21T10:15:00Z',
      },
    ],
    items: {
      anyOf: [
        { $ref: getSchemaPath(TransactionEventDto) },
        { description: 'Any other value: answered in `invalid` with its index.' },
      ],
    },
  })
  transactions: unknown[];

  @ApiPropertyOptional({
    example: true,
    description:
      'Default false. The items are past purchases (for new/lapsed audiences and personalization): stored and deduplicated like any item, effective as soon as the batch is answered, never matched or rewarded.',
  })
  history?: boolean;
}

export class InvalidItemErrorDto {
  @ApiProperty({ example: 'amount' }) field: string;
  @ApiProperty({ example: 'must be a positive number (major units, such as 12.5)' })
  message: string;
}

export class InvalidItemDto {
  @ApiProperty({ example: 3 }) index: number;
  @ApiProperty({ type: [InvalidItemErrorDto] }) errors: InvalidItemErrorDto[];
}

export class BatchResultDto {
  @ApiProperty({ example: 5 }) received: number;
  @ApiProperty({ example: 2 }) accepted: number;
  @ApiProperty({ example: 2 }) duplicates: number;
  @ApiProperty({
    type: [Number],
    example: [1, 4],
    description:
      'Indexes of items whose transaction_ref was already stored or repeated earlier in the batch.',
  })
  duplicate_indexes: number[];
  @ApiProperty({ type: [InvalidItemDto] }) invalid: InvalidItemDto[];
}

export class SimulatedMerchantDto {
  @ApiProperty({ format: 'uuid', example: '7d1f0c2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f' }) id: string;
  @ApiProperty({ example: 'Corner Grocer' }) name: string;
}

/** GET /api/v1/transactions/{transaction_ref}: a stored transaction as a support desk sees it. */
export class TransactionLookupDto {
  @ApiProperty({ format: 'uuid', example: '5b1e3f0a-7c2d-4e8f-9a6b-1c2d3e4f5a6b' }) id: string;
  @ApiProperty({ example: 'txn-2026-11-21-000042' }) transaction_ref: string;
  @ApiProperty({ enum: TRANSACTION_TYPES, example: 'purchase' }) transaction_type: string;
  @ApiProperty({
    enum: TRANSACTION_STATUSES,
    example: 'unmatched',
    description:
      '`received` until matching has run; then `matched`, `unmatched`, `merchant_unresolved` or `match_failed`',
  })
  status: string;
  @ApiProperty({
    type: SimulatedMerchantDto,
    nullable: true,
    description:
      'The merchant the transaction resolved to when it was stored (by `merchant_id`, else by the identifier), or the one matching resolved later; null while neither has',
  })
  merchant: SimulatedMerchantDto | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: null,
    description: "The purchase's redemption, whatever its status; null when none",
  })
  redemption_id: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T14:03:00.000Z' }) transacted_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T14:03:02.120Z' }) received_at: string;
}

/** A goal offer in a simulation: how the purchase would count in the cardholder's open round. */
export class SimulatedGoalDto {
  @ApiProperty({ enum: ['purchases', 'amount'], example: 'purchases' })
  unit: 'purchases' | 'amount';
  @ApiProperty({
    example: 1,
    description:
      'What the purchase would add to the open round (purchases, or an amount in major units); 0 when it does not count',
  })
  counts: number;
  @ApiProperty({ example: 2, description: 'The open round now (before this purchase)' })
  current: number;
  @ApiProperty({ example: 3, description: 'The goal (purchases, or an amount in major units)' })
  target: number;
  @ApiProperty({
    example: false,
    description:
      'True when the purchase would reach the target: the goal then competes for the purchase like any offer (outcome match when it wins)',
  })
  completes: boolean;
}

export class EvaluationDto {
  @ApiProperty({ format: 'uuid', example: '0c6b7a1e-2f3d-4b5c-9d8e-7f6a5b4c3d2e' })
  offer_id: string;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    example: 'a2b3c4d5-e6f7-4a8b-9c0d-1e2f3a4b5c6d',
    description: 'The cardholder’s enrollment, or null when not enrolled.',
  })
  cardholder_offer_id: string | null;
  @ApiProperty({ enum: ['match', 'no_match'], example: 'no_match' }) outcome: 'match' | 'no_match';
  @ApiProperty({ enum: NO_MATCH_REASONS, isArray: true, example: ['below_min_spend'] })
  reasons: string[];
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({
    example: 5,
    description: 'What the cardholder would get (offer currency, major units).',
  })
  cashback_amount: number;
  @ApiProperty({ example: 5.5, description: 'What the institution would be paid.' })
  institution_payout_amount: number;
  @ApiPropertyOptional({
    type: SimulatedGoalDto,
    example: { unit: 'purchases', counts: 1, current: 1, target: 3, completes: false },
    description:
      'Additive, goal offers only: how this purchase would count toward the cardholder’s goal (it counts whoever wins it)',
  })
  goal?: SimulatedGoalDto;
}

/** A goal offer the refunded purchase counted toward: what the refund would take back. */
export class SimulatedGoalRefundDto {
  @ApiProperty({ format: 'uuid', example: '0c6b7a1e-2f3d-4b5c-9d8e-7f6a5b4c3d2e' })
  offer_id: string;
  @ApiProperty({ format: 'uuid', example: 'a2b3c4d5-e6f7-4a8b-9c0d-1e2f3a4b5c6d' })
  cardholder_offer_id: string;
  @ApiProperty({ enum: ['purchases', 'amount'], example: 'purchases' })
  unit: 'purchases' | 'amount';
  @ApiProperty({
    example: 1,
    description:
      'What the refund would take back from the purchase’s contribution (purchases, or an amount in major units)',
  })
  takes_back: number;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    example: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
    description: 'The redemption of the rewarded round the purchase is in, or null (open round)',
  })
  redemption_id: string | null;
  @ApiProperty({
    example: true,
    description: 'True when the refund would take that rewarded round below its target',
  })
  would_reverse: boolean;
}

export class SimulatedRefundDto {
  @ApiProperty({ example: true }) original_found: boolean;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    example: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
  })
  redemption_id: string | null;
  @ApiProperty({
    example: false,
    description: 'True when storing this refund would reverse the purchase’s redemption.',
  })
  would_reverse: boolean;
  @ApiPropertyOptional({
    type: [SimulatedGoalRefundDto],
    description:
      'Additive: the goal offers the purchase counted toward (absent when none): what the refund would take back, and whether it would reverse a rewarded round',
  })
  goals?: SimulatedGoalRefundDto[];
}

export class SimulatedWinnerDto {
  @ApiProperty({ format: 'uuid', example: '0c6b7a1e-2f3d-4b5c-9d8e-7f6a5b4c3d2e' })
  offer_id: string;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    example: 'a2b3c4d5-e6f7-4a8b-9c0d-1e2f3a4b5c6d',
  })
  cardholder_offer_id: string | null;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: 5.5, description: 'What the institution would be paid.' })
  institution_payout_amount: number;
  @ApiProperty({
    example:
      'highest institution payout for this purchase, then higher priority, then lower offer id',
    description: 'How the winner is chosen among the qualifying offers.',
  })
  rule: string;
}

export class SimulatedLifecycleDto {
  @ApiProperty({ enum: REWARD_ON, example: 'clearing', description: 'The program’s reward_on.' })
  reward_on: string;
  @ApiProperty({
    enum: ['none', 'authorized', 'cleared', 'voided', 'expired'],
    example: 'none',
    description: 'The chain (authorization → clearing) as it stands before this record.',
  })
  chain_state: string;
  @ApiProperty({
    enum: ['record', 'decide', 'confirm', 'reverse', 'ignore'],
    example: 'record',
    description: 'The step of the lifecycle state table (docs/transactions.md) this record takes.',
  })
  action: string;
  @ApiProperty({
    enum: ['match', 'no_match', 'would_match_at_clearing', 'would_reverse', 'no_change'],
    example: 'would_match_at_clearing',
    description:
      '`would_match_at_clearing`: an authorization under reward_on=clearing that qualifies; the reward is decided on its clearing, on the cleared amount (`matched` is false: nothing is rewarded now). A clearing that reconsiders the authorization’s redemption (`confirm`) is evaluated with that redemption given back: `match` = a reward stands (the same one is kept, another replaces it), `no_match` = the authorization’s redemption would be reversed.',
  })
  outcome: string;
}

export class SimulationResultDto {
  @ApiProperty({ example: true, description: 'True when matching would create a redemption now.' })
  matched: boolean;
  @ApiProperty({ type: SimulatedMerchantDto, nullable: true })
  merchant: SimulatedMerchantDto | null;
  @ApiProperty({
    example: false,
    description:
      'True when this transaction_ref is already stored (a real post would answer `duplicate`).',
  })
  duplicate: boolean;
  @ApiProperty({ type: [EvaluationDto] }) evaluations: EvaluationDto[];
  @ApiPropertyOptional({
    type: SimulatedWinnerDto,
    nullable: true,
    description:
      'Purchases only: the one offer that would get the redemption (its evaluation is `match`), or null when none qualifies.',
  })
  winner?: SimulatedWinnerDto | null;
  @ApiPropertyOptional({
    type: SimulatedRefundDto,
    description: 'For transaction_type refund only.',
  })
  refund?: SimulatedRefundDto;
  @ApiPropertyOptional({
    type: SimulatedLifecycleDto,
    description:
      'Additive, for transaction_type authorization, clearing and authorization_reversal.',
  })
  lifecycle?: SimulatedLifecycleDto;
}

const now = '2026-11-21T10:15:00Z';
/** Request examples shown in Swagger. */
export const EVENT_EXAMPLES = {
  current: {
    summary: 'Current shape',
    value: {
      cardholder_token: 'chk_7Hq2LmP9xQ',
      card_token: 'ctk_4f9a2b7c1d',
      merchant_identifier: 'DEMO-CA-GREENGROCER',
      merchant_identifier_type: 'card_acceptor',
      mcc: '5411',
      amount: 42.9,
      transaction_ref: 'txn-2026-11-21-000042',
      transacted_at: now,
    },
  },
  pix: {
    summary: 'Instant payment (PIX key)',
    value: {
      cardholder_token: 'chk_7Hq2LmP9xQ',
      instrument_token: 'acct_19ab',
      instrument_type: 'account',
      merchant_identifier: 'demo-pix-cafe-central',
      merchant_identifier_type: 'pix_key',
      amount: 120,
      transaction_ref: 'pix-e2e-0001',
      transacted_at: now,
    },
  },
  earlier: {
    summary: 'Earlier shape',
    value: {
      cardholder_token: 'chk_7Hq2LmP9xQ',
      card_token: 'ctk_4f9a2b7c1d',
      merchant_id: '7d1f0c2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
      amount: 42.9,
      currency: 'USD',
      timestamp: now,
      transaction_id: 'txn-2026-11-21-000042',
    },
  },
  authorization: {
    summary: 'Card authorization (at the swipe)',
    value: {
      cardholder_token: 'chk_7Hq2LmP9xQ',
      card_token: 'ctk_4f9a2b7c1d',
      card_acceptor_id: 'DEMO-CA-GREENGROCER',
      amount: 42.9,
      transaction_ref: 'auth-2026-11-21-000042',
      transacted_at: now,
      transaction_type: 'authorization',
    },
  },
  clearing: {
    summary: 'Clearing of an authorization (the settled amount)',
    value: {
      cardholder_token: 'chk_7Hq2LmP9xQ',
      card_token: 'ctk_4f9a2b7c1d',
      card_acceptor_id: 'DEMO-CA-GREENGROCER',
      amount: 45.9,
      transaction_ref: 'clr-2026-11-22-000042',
      transacted_at: now,
      transaction_type: 'clearing',
      original_transaction_ref: 'auth-2026-11-21-000042',
    },
  },
  authorization_reversal: {
    summary: 'Void of an authorization',
    value: {
      cardholder_token: 'chk_7Hq2LmP9xQ',
      card_token: 'ctk_4f9a2b7c1d',
      card_acceptor_id: 'DEMO-CA-GREENGROCER',
      amount: 42.9,
      transaction_ref: 'void-2026-11-21-000042',
      transacted_at: now,
      transaction_type: 'authorization_reversal',
      original_transaction_ref: 'auth-2026-11-21-000042',
    },
  },
  refund: {
    summary: 'Refund of an earlier purchase',
    value: {
      cardholder_token: 'chk_7Hq2LmP9xQ',
      card_token: 'ctk_4f9a2b7c1d',
      card_acceptor_id: 'DEMO-CA-GREENGROCER',
      amount: 30,
      transaction_ref: 'txn-2026-11-22-000007',
      transacted_at: '2026-11-22T09:00:00Z',
      transaction_type: 'refund',
      original_transaction_ref: 'txn-2026-11-21-000042',
    },
  },
};
