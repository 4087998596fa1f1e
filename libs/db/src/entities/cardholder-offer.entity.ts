import { Column, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { EnrollmentStatus } from '@app/domain';
import { numeric } from './transformers';

/** An enrollment: a cardholder of an institution added to an offer. */
@Entity('cardholder_offer')
export class CardholderOffer {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
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
