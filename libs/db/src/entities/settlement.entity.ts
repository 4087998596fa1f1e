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
import type { SettlementStatus } from '@app/domain';
import type { Institution } from './institution.entity';
import type { Merchant } from './merchant.entity';
import type { Offer } from './offer.entity';
import type { Redemption } from './redemption.entity';
import { NOT_SYNCED } from './schema-allow-list';
import { numeric } from './transformers';

/** The financial record of one redemption. */
@Entity('settlement_entry')
@Unique('settlement_entry_redemption_unique', ['redemptionId', 'institutionId'])
@Index('settlement_entry_report_idx', ['institutionId', 'createdAt', 'id'], NOT_SYNCED)
@Index(
  'settlement_entry_status_report_idx',
  ['institutionId', 'status', 'createdAt', 'id'],
  NOT_SYNCED,
)
@Index('settlement_entry_pending_idx', ['createdAt'], { where: "status = 'pending'" })
export class SettlementEntry {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('uuid', { name: 'redemption_id' }) redemptionId: string;
  @ManyToOne('Redemption')
  @JoinColumn([
    { name: 'redemption_id', referencedColumnName: 'id' },
    { name: 'institution_id', referencedColumnName: 'institutionId' },
  ])
  redemption?: Redemption;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
  @ManyToOne('Offer')
  @JoinColumn({ name: 'offer_id' })
  offer?: Offer;
  @Column('uuid', { name: 'merchant_id' }) merchantId: string;
  @ManyToOne('Merchant')
  @JoinColumn({ name: 'merchant_id' })
  merchant?: Merchant;
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
  @ManyToOne(() => SettlementRun)
  @JoinColumn({ name: 'settlement_run_id' })
  settlementRun?: SettlementRun | null;
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
