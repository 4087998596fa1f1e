import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { SettlementStatus } from '@app/domain';
import { numeric } from './transformers';

/** The financial record of one redemption. */
@Entity('settlement_entry')
export class SettlementEntry {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  @Column('uuid', { name: 'redemption_id' }) redemptionId: string;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
  @Column('uuid', { name: 'merchant_id' }) merchantId: string;
  @Column('char', { length: 3 }) currency: string;
  @Column('bigint', { name: 'merchant_funded_amount', transformer: numeric })
  merchantFundedAmount: number;
  @Column('bigint', { name: 'service_revenue_amount', transformer: numeric })
  serviceRevenueAmount: number;
  @Column('bigint', { name: 'institution_payout_amount', transformer: numeric })
  institutionPayoutAmount: number;
  /** Set when a settled entry is reversed: what the institution must claw back. */
  @Column('bigint', { name: 'clawback_amount', nullable: true, transformer: numeric })
  clawbackAmount: number | null;
  @Column('text', { default: 'pending' }) status: SettlementStatus;
  @Column('uuid', { name: 'settlement_run_id', nullable: true }) settlementRunId: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'settled_at', nullable: true }) settledAt: Date | null;
  @Column('timestamptz', { name: 'reversed_at', nullable: true }) reversedAt: Date | null;
}

@Entity('settlement_run')
export class SettlementRun {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('timestamptz', { name: 'as_of' }) asOf: Date;
  @Column('text') trigger: 'schedule' | 'operator';
  @Column('int', { name: 'settled_count', default: 0 }) settledCount: number;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
}
