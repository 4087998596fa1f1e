import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { Institution } from './institution.entity';
import { NOT_SYNCED } from './schema-allow-list';
import { numeric } from './transformers';
import type {
  ChainState,
  InstrumentTypeValue,
  MerchantIdentifierTypeValue,
  TransactionSource,
  TransactionStatus,
  TransactionTypeValue,
} from '@app/domain';

// Defined in libs/domain (record-statuses.ts); the ingestion imports it from here.
export type { TransactionSource } from '@app/domain';

/**
 * A posted transaction event. `amount` is the decimal as sent (its currency may be unknown).
 * Partitioned by UTC month of received_at (allow-listed: TypeORM cannot create partitions; the
 * worker creates them ahead and retention drops them, libs/core/src/data-lifecycle); the key holds
 * the tenant and the partition key. A reference's uniqueness is transaction_key's (no time bound).
 * No index reads `status`, and the merchant is resolved at insert: matching's write of the outcome
 * is a HOT update, on a page its month's fillfactor (50) leaves room on.
 */
@Entity('transaction', { synchronize: false })
// Personalization reads a cardholder's history per merchant.
@Index('transaction_cardholder_idx', ['institutionId', 'cardholderToken', 'merchantId'])
@Index('transaction_refund_of_idx', ['institutionId', 'originalTransactionRef'], {
  where: "kind = 'refund'",
})
// Quarantined rows, newest first: partial on match_failed_at (set and cleared with the status),
// so that no index depends on the status and matching's outcome write stays HOT.
@Index('transaction_match_failed_idx', ['matchFailedAt', 'id'], NOT_SYNCED)
@Index(
  'transaction_merchant_purchase_idx',
  ['institutionId', 'merchantId', 'transactedAt'],
  NOT_SYNCED,
)
export class Transaction {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('timestamptz', { name: 'received_at', default: () => 'now()' }) receivedAt: Date;
  @PrimaryGeneratedColumn('uuid') id: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('text', { name: 'transaction_ref' }) transactionRef: string;
  @Column('text', { name: 'cardholder_token' }) cardholderToken: string;
  @Column('text', { name: 'instrument_token', nullable: true }) instrumentToken: string | null;
  @Column('text', { name: 'instrument_type', nullable: true })
  instrumentType: InstrumentTypeValue | null;
  @Column('text', { name: 'merchant_identifier', nullable: true }) merchantIdentifier:
    string | null;
  @Column('text', { name: 'merchant_identifier_type', nullable: true })
  merchantIdentifierType: MerchantIdentifierTypeValue | null;
  @Column('uuid', { name: 'merchant_id', nullable: true }) merchantId: string | null;
  @Column('text', { nullable: true }) mcc: string | null;
  @Column('text', { name: 'merchant_descriptor', nullable: true }) merchantDescriptor:
    string | null;
  @Column('text', { nullable: true }) network: string | null;
  @Column('text', { nullable: true }) channel: string | null;
  @Column('numeric', { precision: 20, scale: 4, transformer: numeric }) amount: number;
  @Column('char', { length: 3, nullable: true }) currency: string | null;
  @Column('timestamptz', { name: 'transacted_at' }) transactedAt: Date;
  @Column('text') source: TransactionSource;
  @Column('text', { default: 'purchase' }) kind: TransactionTypeValue;
  @Column('text', { name: 'original_transaction_ref', nullable: true }) originalTransactionRef:
    string | null;
  @Column('text', { default: 'received' }) status: TransactionStatus;
  @Column('timestamptz', { name: 'processed_at', nullable: true }) processedAt: Date | null;
  /** Why matching gave up on this row (status match_failed), and when. */
  @Column('text', { name: 'match_error', nullable: true }) matchError: string | null;
  @Column('timestamptz', { name: 'match_failed_at', nullable: true }) matchFailedAt: Date | null;
  /** A past purchase stored for audiences and personalization: never matched. */
  @Column('boolean', { default: false }) history: boolean;
}

/**
 * The idempotency key of a transaction (docs/retention.md): one row per (institution,
 * transaction_ref) for as long as the service runs, so a reference is a duplicate with no time
 * bound, and the way from a reference or an id to the transaction's month (`received_at`, the
 * partition key). Never partitioned, never dropped by retention. No foreign key: it is written on
 * the ingest path beside the transaction, which has its own to the institution. A statement trigger
 * (transaction_key_fill) adds the key of a transaction inserted without one.
 */
@Entity('transaction_key')
@Index('transaction_key_id_idx', ['transactionId'], NOT_SYNCED)
// The refunds of a purchase, by the reference they name (refundsOfSql, libs/core ingestion).
@Index('transaction_key_refund_of_idx', ['institutionId', 'refundOf'], {
  where: 'refund_of IS NOT NULL',
})
export class TransactionKey {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('text', { name: 'transaction_ref' }) transactionRef: string;
  @Column('uuid', { name: 'transaction_id' }) transactionId: string;
  @Column('timestamptz', { name: 'received_at' }) receivedAt: Date;
  /** A refund's original_transaction_ref (set by the key trigger for every refund inserted). */
  @Column('text', { name: 'refund_of', nullable: true }) refundOf: string | null;
}

/**
 * The transactions still `received` (not yet matched), oldest first: what the matching relay
 * re-enqueues after a lost job (Redis down, a crash before the enqueue). Kept by statement triggers
 * on transaction (transaction_backlog_sync), whoever writes: a row inserted `received` enters, a
 * row updated out of it or deleted leaves, in the same statement. A month dropped by retention
 * leaves its rows here; the relay deletes those it finds. Not an index on transaction, so that
 * matching's status write changes no indexed column.
 */
@Entity('transaction_backlog')
export class TransactionBacklog {
  @PrimaryColumn('timestamptz', { name: 'received_at' }) receivedAt: Date;
  @PrimaryColumn('uuid') id: string;
  /** With received_at and id, the transaction's primary key (no foreign key: months are dropped). */
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
}

/**
 * A card purchase's lifecycle (authorization, clearing, void, expiry), keyed by its
 * authorization's reference: the state and the transaction that was rewarded.
 */
@Entity('card_chain')
@Index('card_chain_expiry_idx', ['expiresAt'], { where: "state = 'authorized'" })
@Index('card_chain_rewarded_idx', ['rewardedTransactionId', 'institutionId'], {
  unique: true,
  where: 'rewarded_transaction_id IS NOT NULL',
})
// A refund may name a clearing: it is found by (institution, clearing ref).
@Index('card_chain_clearing_idx', ['institutionId', 'clearingRef'], {
  where: 'clearing_ref IS NOT NULL',
})
export class CardChain {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('text', { name: 'authorization_ref' }) authorizationRef: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('text', { default: 'none' }) state: ChainState;
  @Column('numeric', {
    name: 'authorization_amount',
    precision: 20,
    scale: 4,
    nullable: true,
    transformer: numeric,
  })
  authorizationAmount: number | null;
  @Column('text', { name: 'clearing_ref', nullable: true }) clearingRef: string | null;
  @Column('numeric', {
    name: 'cleared_amount',
    precision: 20,
    scale: 4,
    nullable: true,
    transformer: numeric,
  })
  clearedAmount: number | null;
  @Column('timestamptz', { name: 'cleared_at', nullable: true }) clearedAt: Date | null;
  /** No foreign key: the record's month may be dropped by retention under the chain. */
  @Column('uuid', { name: 'rewarded_transaction_id', nullable: true })
  rewardedTransactionId: string | null;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}

/**
 * The calendar months (UTC) in which a cardholder bought at an institution: one row per month
 * with at least one purchase of the kinds that can earn (PURCHASE_KINDS). Kept by the transaction
 * store in the statement that inserts them (insert-only), so the lift report finds its eligible
 * cardholders here (a few rows each) instead of in every purchase (docs/lift.md). A token here is
 * erased with the transactions (docs/privacy.md).
 */
@Entity('cardholder_activity')
export class CardholderActivity {
  // Keyed by cardholder first: the report reads an institution's rows in cardholder order (one
  // group per cardholder without a hash), the erasure finds a cardholder's months by the key.
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @PrimaryColumn('text', { name: 'cardholder_token' }) cardholderToken: string;
  /** The month's first day (UTC). */
  @PrimaryColumn('date') month: string;
}
