import { CURRENCY_MESSAGE, fitsCurrency, isCurrencyCode } from './money';
import { piiProblems } from './pii';
import { textProblem } from './text';
import { parseTransactedAt } from './timestamp';
import { Channel, CHANNELS } from './qualification';

/**
 * Parsing and validation of a posted transaction event, in both published shapes (the current
 * one and the earlier payload shape, docs/transactions.md: transaction_id → transaction_ref,
 * timestamp → transacted_at, merchant_id, currency). The single, batch, simulate and CSV paths all
 * call this one function, so every path applies the same rules and reports the same per-field
 * errors. Hand-written rather than class-validator: a batch validates 1,000 items per request.
 */

export const MERCHANT_IDENTIFIER_TYPES = [
  'card_acceptor',
  'pix_key',
  'upi_vpa',
  'codi',
  'psp_merchant_id',
] as const;
export type MerchantIdentifierTypeValue = (typeof MERCHANT_IDENTIFIER_TYPES)[number];
export const INSTRUMENT_TYPES = ['card', 'wallet', 'account'] as const;
export type InstrumentTypeValue = (typeof INSTRUMENT_TYPES)[number];
/**
 * `purchase` and `refund`, and the card lifecycle (card-lifecycle.ts): `authorization` at the swipe,
 * `clearing` (the settled amount) and `authorization_reversal` (a void), both naming their
 * authorization by original_transaction_ref. A clearing without one is stored as a purchase.
 */
export const TRANSACTION_TYPES = [
  'purchase',
  'refund',
  'authorization',
  'clearing',
  'authorization_reversal',
] as const;
export type TransactionTypeValue = (typeof TRANSACTION_TYPES)[number];

/** Every field a transaction event may carry (current shape, earlier shape, refunds). */
export const TRANSACTION_EVENT_FIELDS = [
  'institution_id',
  'cardholder_token',
  'card_token',
  'instrument_token',
  'instrument_type',
  'merchant_identifier',
  'merchant_identifier_type',
  'card_acceptor_id',
  'mcc',
  'merchant_descriptor',
  'network',
  'merchant_id',
  'amount',
  'currency',
  'transaction_ref',
  'transaction_id',
  'transacted_at',
  'timestamp',
  'transaction_type',
  'original_transaction_ref',
  'channel',
] as const;
const KNOWN = new Set<string>(TRANSACTION_EVENT_FIELDS);

/** A validated event, normalized to the current shape. */
export interface TransactionEvent {
  /** As sent (already checked against the key's institution when one was given). */
  institutionId: string | null;
  cardholderToken: string;
  instrumentToken: string;
  instrumentType: InstrumentTypeValue | null;
  merchantIdentifier: string | null;
  merchantIdentifierType: MerchantIdentifierTypeValue | null;
  merchantId: string | null;
  mcc: string | null;
  merchantDescriptor: string | null;
  network: string | null;
  /** Decimal text in major units, as sent (at most 4 decimal places). */
  amount: string;
  currency: string | null;
  transactionRef: string;
  /** ISO 8601, UTC, millisecond precision. */
  transactedAt: string;
  kind: TransactionTypeValue;
  originalTransactionRef: string | null;
  /** `in_store` or `online` when sent (offers restricted to channels need it); absent otherwise. */
  channel?: Channel;
}

export interface FieldError {
  field: string;
  message: string;
  /** Set for the two errors that have their own code: pii_rejected and institution_mismatch. */
  code?: 'pii_rejected' | 'institution_mismatch';
}

export type ParseResult =
  { ok: true; event: TransactionEvent } | { ok: false; errors: FieldError[] };

export interface ParseOptions {
  /** The API key's institution: an institution_id that differs is an error. */
  institutionId?: string;
  /** Current time in ms (transacted_at may not lie more than a day ahead of it). */
  now?: number;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_AMOUNT = 1e12;

type Raw = Record<string, unknown>;

class Collector {
  readonly errors: FieldError[] = [];
  add(field: string, message: string, code?: FieldError['code']): void {
    this.errors.push(code ? { field, message, code } : { field, message });
  }
}

function present(raw: Raw, field: string): boolean {
  return raw[field] !== undefined && raw[field] !== null;
}

/** An optional string field: absent/null → null; otherwise 1..max characters, no control characters. */
function str(raw: Raw, field: string, max: number, c: Collector, required = false): string | null {
  const v = raw[field];
  if (v === undefined || v === null) {
    if (required) c.add(field, 'is required');
    return null;
  }
  if (typeof v !== 'string') {
    c.add(field, 'must be a string');
    return null;
  }
  if (v.length === 0 || v.length > max) {
    c.add(field, `must be 1 to ${max} characters`);
    return null;
  }
  if (CONTROL.test(v)) {
    c.add(field, 'must not contain control characters');
    return null;
  }
  const problem = textProblem(v);
  if (problem) {
    c.add(field, problem);
    return null;
  }
  return v;
}

function oneOf<T extends string>(
  raw: Raw,
  field: string,
  values: readonly T[],
  c: Collector,
): T | null {
  const v = raw[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    c.add(field, `must be one of: ${values.join(', ')}`);
    return null;
  }
  return v as T;
}

function timestamp(raw: Raw, field: string, c: Collector, now: number): string | null {
  const v = raw[field];
  if (v === undefined || v === null) return null;
  const r = parseTransactedAt(v, now);
  if (!r.ok) {
    c.add(field, r.message);
    return null;
  }
  return r.iso;
}

/** A JS number as plain decimal text (no exponent), or null when it has more than 4 decimals. */
function amountText(n: number): string | null {
  const s = String(n);
  if (/e/i.test(s)) return null;
  const frac = s.split('.')[1] ?? '';
  return frac.length <= 4 ? s : null;
}

/** The types that name an original record by original_transaction_ref. */
function namesOriginal(kind: TransactionTypeValue): boolean {
  return kind === 'refund' || kind === 'clearing' || kind === 'authorization_reversal';
}

/** Validates and normalizes one transaction event (either published shape). */
export function parseTransactionEvent(input: unknown, options: ParseOptions = {}): ParseResult {
  const c = new Collector();
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, errors: [{ field: 'body', message: 'must be a JSON object' }] };
  }
  const raw = input as Raw;
  const now = options.now ?? Date.now();
  for (const key of Object.keys(raw)) if (!KNOWN.has(key)) c.add(key, 'is not an accepted field');

  // Institution: derived from the key; a differing institution_id is refused.
  let institutionId: string | null = null;
  if (present(raw, 'institution_id')) {
    const v = raw.institution_id;
    if (typeof v !== 'string' || !UUID_PATTERN.test(v)) c.add('institution_id', 'must be a UUID');
    else if (options.institutionId && v.toLowerCase() !== options.institutionId.toLowerCase()) {
      c.add(
        'institution_id',
        'institution_mismatch: differs from the institution of the API key',
        'institution_mismatch',
      );
    } else institutionId = v.toLowerCase();
  }

  // Tokens, and the PII guard on each.
  const cardholderToken = str(raw, 'cardholder_token', 256, c, true);
  const cardToken = str(raw, 'card_token', 256, c);
  const instrumentToken = str(raw, 'instrument_token', 256, c);
  for (const { field, message } of piiProblems({
    cardholder_token: cardholderToken,
    card_token: cardToken,
    instrument_token: instrumentToken,
  }))
    c.add(field, `pii_rejected: ${message}`, 'pii_rejected');
  if (!present(raw, 'card_token') && !present(raw, 'instrument_token')) {
    c.add('instrument_token', 'one of card_token or instrument_token is required');
  } else if (cardToken && instrumentToken && cardToken !== instrumentToken) {
    c.add(
      'card_token',
      'differs from instrument_token; send one of them (card_token is the card alias of instrument_token)',
    );
  }
  let instrumentType = oneOf(raw, 'instrument_type', INSTRUMENT_TYPES, c);
  if (!present(raw, 'instrument_type') && cardToken) instrumentType = 'card';

  // Merchant: merchant_identifier (+ type), the card_acceptor_id alias, or merchant_id.
  let merchantIdentifier = str(raw, 'merchant_identifier', 200, c);
  let merchantIdentifierType = oneOf(raw, 'merchant_identifier_type', MERCHANT_IDENTIFIER_TYPES, c);
  const cardAcceptorId = str(raw, 'card_acceptor_id', 200, c);
  if (present(raw, 'merchant_identifier_type') && !present(raw, 'merchant_identifier')) {
    c.add('merchant_identifier_type', 'is only allowed together with merchant_identifier');
  }
  if (merchantIdentifier && !merchantIdentifierType && !present(raw, 'merchant_identifier_type'))
    merchantIdentifierType = 'card_acceptor';
  if (cardAcceptorId) {
    if (
      merchantIdentifier &&
      (merchantIdentifier !== cardAcceptorId || merchantIdentifierType !== 'card_acceptor')
    ) {
      c.add('card_acceptor_id', 'conflicts with merchant_identifier; send one of them');
    } else {
      merchantIdentifier = cardAcceptorId;
      merchantIdentifierType = 'card_acceptor';
    }
  }
  let merchantId: string | null = null;
  if (present(raw, 'merchant_id')) {
    const v = raw.merchant_id;
    if (typeof v !== 'string' || !UUID_PATTERN.test(v))
      c.add('merchant_id', 'must be a UUID (the service merchant id)');
    else merchantId = v.toLowerCase();
  }
  if (
    !present(raw, 'merchant_identifier') &&
    !present(raw, 'card_acceptor_id') &&
    !present(raw, 'merchant_id')
  ) {
    c.add(
      'merchant_identifier',
      'one of merchant_identifier, card_acceptor_id or merchant_id is required',
    );
  }

  const mcc = str(raw, 'mcc', 4, c);
  if (mcc && !/^\d{4}$/.test(mcc)) c.add('mcc', 'must be 4 digits');
  const merchantDescriptor = str(raw, 'merchant_descriptor', 200, c);
  const network = str(raw, 'network', 50, c);
  const channel = oneOf(raw, 'channel', CHANNELS, c);

  // Currency (earlier shape; optional in both) and amount.
  let currency: string | null = null;
  if (present(raw, 'currency')) {
    if (!isCurrencyCode(raw.currency)) c.add('currency', CURRENCY_MESSAGE);
    else currency = raw.currency;
  }
  let amount: string | null = null;
  if (!present(raw, 'amount')) c.add('amount', 'is required');
  else if (
    typeof raw.amount !== 'number' ||
    !Number.isFinite(raw.amount) ||
    raw.amount <= 0 ||
    raw.amount >= MAX_AMOUNT
  ) {
    c.add('amount', 'must be a positive number (major units, such as 12.5)');
  } else if ((amount = amountText(raw.amount)) === null) {
    c.add('amount', 'must have at most 4 decimal places');
  } else if (currency && !fitsCurrency(amount, currency)) {
    c.add('amount', `has more decimal places than ${currency} allows`);
    amount = null;
  }

  // Idempotency key: transaction_ref, or the earlier shape's transaction_id.
  const ref = str(raw, 'transaction_ref', 200, c);
  const legacyRef = str(raw, 'transaction_id', 200, c);
  if (!present(raw, 'transaction_ref') && !present(raw, 'transaction_id'))
    c.add('transaction_ref', 'is required');
  else if (ref && legacyRef && ref !== legacyRef)
    c.add('transaction_id', 'differs from transaction_ref; send one of them');
  const transactionRef = ref ?? legacyRef;

  // Time: transacted_at, or the earlier shape's timestamp.
  const at = timestamp(raw, 'transacted_at', c, now);
  const legacyAt = timestamp(raw, 'timestamp', c, now);
  if (!present(raw, 'transacted_at') && !present(raw, 'timestamp'))
    c.add('transacted_at', 'is required');
  else if (at && legacyAt && at !== legacyAt)
    c.add('timestamp', 'differs from transacted_at; send one of them');
  const transactedAt = at ?? legacyAt;

  // Refunds and the card lifecycle: which types name an original record.
  const typeValue = oneOf(raw, 'transaction_type', TRANSACTION_TYPES, c);
  const typeInvalid = present(raw, 'transaction_type') && typeValue === null;
  const sentOriginal = present(raw, 'original_transaction_ref');
  // A clearing that names no authorization is a purchase (the card lifecycle has nothing to join).
  const kind = typeValue === 'clearing' && !sentOriginal ? 'purchase' : (typeValue ?? 'purchase');
  const originalTransactionRef = str(raw, 'original_transaction_ref', 200, c);
  if ((kind === 'refund' || kind === 'authorization_reversal') && !sentOriginal) {
    c.add('original_transaction_ref', `is required when transaction_type is ${kind}`);
  } else if (!typeInvalid && !namesOriginal(kind) && sentOriginal) {
    c.add(
      'original_transaction_ref',
      'is only allowed when transaction_type is refund, clearing or authorization_reversal',
    );
  } else if (originalTransactionRef && originalTransactionRef === transactionRef) {
    c.add('original_transaction_ref', 'must differ from transaction_ref');
  }

  if (c.errors.length) return { ok: false, errors: c.errors };
  return {
    ok: true,
    event: {
      institutionId,
      cardholderToken: cardholderToken!,
      instrumentToken: (instrumentToken ?? cardToken)!,
      instrumentType,
      merchantIdentifier,
      merchantIdentifierType: merchantIdentifier ? merchantIdentifierType : null,
      merchantId,
      mcc,
      merchantDescriptor,
      network,
      amount: amount!,
      currency,
      transactionRef: transactionRef!,
      transactedAt: transactedAt!,
      kind,
      originalTransactionRef: namesOriginal(kind) ? originalTransactionRef : null,
      ...(channel ? { channel } : {}),
    },
  };
}
