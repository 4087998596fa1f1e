import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import type { MovementType, StatementGranularity } from '@app/domain';
import type { Institution } from './institution.entity';
import { numeric } from './transformers';

/**
 * The open day of one institution and currency: every movement reads it FOR KEY SHARE, closing
 * takes it FOR UPDATE (docs/statements.md). Balances in minor units.
 */
@Entity('statement_book')
export class StatementBook {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @PrimaryColumn('char', { length: 3 }) currency: string;
  /** The first day not closed yet, in `time_zone`. */
  @Column('date', { name: 'open_day' }) openDay: string;
  /** The zone the open month opened with; a program's new zone applies from the next month. */
  @Column('text', { name: 'time_zone' }) timeZone: string;
  @Column('bigint', { name: 'pending_opening', transformer: numeric }) pendingOpening: number;
  @Column('bigint', { name: 'month_pending_opening', transformer: numeric })
  monthPendingOpening: number;
}

/**
 * One change to an institution's money, booked once by the settlement_entry triggers, with what
 * its statement line shows copied at booking. Append-only; no foreign keys (it outlives its rows).
 */
@Entity('statement_movement')
@Unique('statement_movement_once', ['settlementEntryId', 'type', 'institutionId'])
@Index('statement_movement_period_idx', [
  'institutionId',
  'currency',
  'periodDay',
  'bookedAt',
  'id',
])
@Index('statement_movement_merchant_idx', ['merchantId', 'bookedAt'])
export class StatementMovement {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @Column('char', { length: 3 }) currency: string;
  /** The day statement it belongs to, in the book's time zone. */
  @Column('date', { name: 'period_day' }) periodDay: string;
  @Column('text') type: MovementType;
  @Column('timestamptz', { name: 'booked_at' }) bookedAt: Date;
  /** Positive, minor units; the type says the direction. */
  @Column('bigint', { transformer: numeric }) amount: number;
  @Column('uuid', { name: 'settlement_entry_id' }) settlementEntryId: string;
  @Column('uuid', { name: 'redemption_id' }) redemptionId: string;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
  @Column('uuid', { name: 'merchant_id' }) merchantId: string;
  @Column('text', { name: 'merchant_name' }) merchantName: string;
  @Column('text', { name: 'offer_title' }) offerTitle: string;
  @Column('text', { name: 'transaction_ref' }) transactionRef: string;
  @Column('bigint', { name: 'merchant_funded_amount', transformer: numeric })
  merchantFundedAmount: number;
  @Column('bigint', { name: 'service_revenue_amount', transformer: numeric })
  serviceRevenueAmount: number;
  @Column('bigint', { name: 'institution_payout_amount', transformer: numeric })
  institutionPayoutAmount: number;
  @Column('text') source: 'matching' | 'claim';
}

/** A closed statement (an open one is computed live); never updated. Figures in minor units. */
@Entity('statement')
@Unique('statement_period_unique', ['institutionId', 'granularity', 'periodStart', 'currency'])
export class Statement {
  /** UUIDv5 of (institution, currency, granularity, period_start): the same while open. */
  @PrimaryColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('char', { length: 3 }) currency: string;
  @Column('text') granularity: StatementGranularity;
  @Column('date', { name: 'period_start' }) periodStart: string;
  @Column('date', { name: 'period_end' }) periodEnd: string;
  @Column('text', { name: 'time_zone' }) timeZone: string;
  @Column('bigint', { name: 'pending_opening', transformer: numeric }) pendingOpening: number;
  @Column('bigint', { transformer: numeric }) earned: number;
  @Column('bigint', { transformer: numeric }) reversed: number;
  @Column('bigint', { transformer: numeric }) settled: number;
  @Column('bigint', { name: 'pending_closing', transformer: numeric }) pendingClosing: number;
  @Column('bigint', { name: 'clawed_back', transformer: numeric }) clawedBack: number;
  @Column('bigint', { name: 'net_payout', transformer: numeric }) netPayout: number;
  @Column('int', { name: 'movement_count' }) movementCount: number;
  /** SHA-256 (lowercase hex) of the lines file. */
  @Column('char', { length: 64 }) checksum: string;
  @Column('timestamptz', { name: 'closed_at', default: () => 'now()' }) closedAt: Date;
}
