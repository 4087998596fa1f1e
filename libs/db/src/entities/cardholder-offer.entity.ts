import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { EnrollmentStatus } from '@app/domain';
import type { Institution } from './institution.entity';
import type { Offer } from './offer.entity';
import { numeric } from './transformers';

/** An enrollment: a cardholder of an institution added to an offer. */
@Entity('cardholder_offer')
// One live enrollment per cardholder and offer; an expired one may be added again.
@Index('cardholder_offer_unique', ['institutionId', 'cardholderToken', 'offerId'], {
  unique: true,
  where: "status <> 'expired'",
})
@Index('cardholder_offer_offer_idx', ['offerId'])
@Index('cardholder_offer_popularity_idx', ['institutionId', 'offerId'])
@Index('cardholder_offer_cardholder_idx', ['institutionId', 'cardholderToken'])
export class CardholderOffer {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
  @ManyToOne('Offer')
  @JoinColumn({ name: 'offer_id' })
  offer?: Offer;
  @Column('text', { name: 'cardholder_token' }) cardholderToken: string;
  @Column('text', { name: 'card_token', nullable: true }) cardToken: string | null;
  @Column('text', { default: 'active' }) status: EnrollmentStatus;
  @Column('int', { name: 'redemption_count', default: 0 }) redemptionCount: number;
  /** Goal offers: the open round, its progress (purchases or minor units) and counted spend. */
  @Column('int', { name: 'goal_round', default: 1 }) goalRound: number;
  @Column('bigint', { name: 'goal_progress', default: 0, transformer: numeric })
  goalProgress: number;
  @Column('bigint', { name: 'goal_spend', default: 0, transformer: numeric }) goalSpend: number;
  @Column('timestamptz', { name: 'added_at', default: () => 'now()' }) addedAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}

/** What one purchase counted towards one enrollment's goal round (at most once per pair). */
@Entity('goal_contribution')
@Index('goal_contribution_round_idx', ['cardholderOfferId', 'round'])
export class GoalContribution {
  /** The counted purchase: no foreign key, its month may be dropped by retention. */
  @PrimaryColumn('uuid', { name: 'transaction_id' }) transactionId: string;
  @PrimaryColumn('uuid', { name: 'cardholder_offer_id' }) cardholderOfferId: string;
  /** The enrollment's institution (its key's tenant column). */
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne(() => CardholderOffer)
  @JoinColumn([
    { name: 'cardholder_offer_id', referencedColumnName: 'id' },
    { name: 'institution_id', referencedColumnName: 'institutionId' },
  ])
  cardholderOffer?: CardholderOffer;
  @Column('int') round: number;
  /** What this purchase added to the round's progress and to its counted spend. */
  @Column('bigint', { transformer: numeric }) units: number;
  @Column('bigint', { transformer: numeric }) spend: number;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
