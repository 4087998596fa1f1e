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
import type { ReversalReason, SettlementStatus } from '@app/domain';
import type { CardholderOffer } from './cardholder-offer.entity';
import type { Institution } from './institution.entity';
import type { Offer } from './offer.entity';
import { NOT_SYNCED } from './schema-allow-list';
import { numeric } from './transformers';

/** A qualifying purchase: at most one per transaction. Amounts in minor units of `currency`. */
@Entity('redemption')
@Unique('redemption_transaction_unique', ['transactionId', 'institutionId'])
@Index('redemption_report_idx', ['institutionId', 'createdAt', 'id'], NOT_SYNCED)
@Index('redemption_enrollment_idx', ['cardholderOfferId'])
@Index('redemption_offer_idx', ['offerId', 'createdAt'])
// An erasure finds a cardholder's redemptions (docs/privacy.md).
@Index('redemption_cardholder_idx', ['institutionId', 'cardholderToken'])
export class Redemption {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  /** The rewarded record: no foreign key, its month may be dropped by retention. */
  @Column('uuid', { name: 'transaction_id' }) transactionId: string;
  @Column('uuid', { name: 'cardholder_offer_id' }) cardholderOfferId: string;
  @ManyToOne('CardholderOffer')
  @JoinColumn([
    { name: 'cardholder_offer_id', referencedColumnName: 'id' },
    { name: 'institution_id', referencedColumnName: 'institutionId' },
  ])
  cardholderOffer?: CardholderOffer;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
  @ManyToOne('Offer')
  @JoinColumn({ name: 'offer_id' })
  offer?: Offer;
  @Column('text', { name: 'cardholder_token' }) cardholderToken: string;
  @Column('char', { length: 3 }) currency: string;
  @Column('bigint', { name: 'purchase_amount', transformer: numeric }) purchaseAmount: number;
  @Column('bigint', { name: 'cashback_amount', transformer: numeric }) cashbackAmount: number;
  @Column('bigint', { name: 'merchant_funded_amount', transformer: numeric })
  merchantFundedAmount: number;
  @Column('bigint', { name: 'service_revenue_amount', transformer: numeric })
  serviceRevenueAmount: number;
  @Column('bigint', { name: 'institution_payout_amount', transformer: numeric })
  institutionPayoutAmount: number;
  /** The goal round this redemption rewards; null for a redemption of a single purchase. */
  @Column('int', { name: 'goal_round', nullable: true }) goalRound: number | null;
  /** The round's target when it was rewarded (the offer's may change later). */
  @Column('bigint', { name: 'goal_target', nullable: true }) goalTarget: string | null;
  /** `claim` when a claim decided it (docs/claims.md), else `matching`. */
  @Column('text', { default: 'matching' }) source: 'matching' | 'claim';
  @Column('text', { default: 'pending' }) status: SettlementStatus;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'settled_at', nullable: true }) settledAt: Date | null;
  @Column('timestamptz', { name: 'reversed_at', nullable: true }) reversedAt: Date | null;
  /**
   * The rewarded record's transaction_ref, stored with the redemption (its events and reporting
   * rows carry it; the transaction may be gone by retention). An insert without it (the previous
   * release during a deploy) is filled from the transaction by a trigger (schema-allow-list.ts).
   */
  @Column('text', { name: 'transaction_ref' }) transactionRef: string;
  /** When the rewarded record happened, stored with the redemption (docs/retention.md). */
  @Column('timestamptz', { name: 'transacted_at' }) transactedAt: Date;
  /** Why a reversed redemption was reversed (null until then, and for some reversed before this was stored). */
  @Column('text', { name: 'reversal_reason', nullable: true })
  reversalReason: ReversalReason | null;
  /** The transaction_ref of the record that reversed it (a refund, a void, a clearing); null for an expiry. */
  @Column('text', { name: 'reversal_transaction_ref', nullable: true })
  reversalTransactionRef: string | null;
}
