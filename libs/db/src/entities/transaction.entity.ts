import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { numeric } from './transformers';
import type {
  InstrumentTypeValue,
  MerchantIdentifierTypeValue,
  TransactionSource,
  TransactionStatus,
  TransactionTypeValue,
} from '@app/domain';

// Defined in libs/domain (record-statuses.ts); the ingestion imports it from here.
export type { TransactionSource } from '@app/domain';

/** A posted transaction event. `amount` is the decimal as sent (its currency may be unknown). */
@Entity('transaction')
export class Transaction {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
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
  @Column('timestamptz', { name: 'received_at', default: () => 'now()' }) receivedAt: Date;
  @Column('text') source: TransactionSource;
  @Column('text', { default: 'purchase' }) kind: TransactionTypeValue;
  @Column('text', { name: 'original_transaction_ref', nullable: true }) originalTransactionRef:
    string | null;
  @Column('text', { default: 'received' }) status: TransactionStatus;
  @Column('timestamptz', { name: 'processed_at', nullable: true }) processedAt: Date | null;
}
