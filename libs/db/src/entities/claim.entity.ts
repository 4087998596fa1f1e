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
import type { ClaimDecider, ClaimStatus } from '@app/domain';
import type { Institution } from './institution.entity';
import type { Offer } from './offer.entity';

/**
 * A claim for a missing reward (docs/claims.md): one per (institution, offer, transaction_ref).
 * `redemption_id` has no foreign key: retention may remove the redemption, the claim stays.
 */
@Entity('claim')
@Unique('claim_unique', ['institutionId', 'offerId', 'transactionRef'])
// The institution's list, newest first (keyset over created_at, id).
@Index('claim_list_idx', ['institutionId', 'createdAt', 'id'])
// The operators' queue: claims by status (pending_review), across institutions.
@Index('claim_status_idx', ['status', 'createdAt', 'id'])
// An erasure finds a cardholder's claims (docs/privacy.md).
@Index('claim_cardholder_idx', ['institutionId', 'cardholderToken'])
export class Claim {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
  @ManyToOne('Offer')
  @JoinColumn({ name: 'offer_id' })
  offer?: Offer;
  @Column('text', { name: 'transaction_ref' }) transactionRef: string;
  @Column('text', { name: 'cardholder_token' }) cardholderToken: string;
  @Column('text') status: ClaimStatus;
  /** Codes of the rules that failed (a rejection), else empty. */
  @Column('text', { array: true, default: () => "'{}'" }) reasons: string[];
  @Column('uuid', { name: 'redemption_id', nullable: true }) redemptionId: string | null;
  /** `rules` or `operator`; null while pending_review. */
  @Column('text', { name: 'decided_by', nullable: true }) decidedBy: ClaimDecider | null;
  /** The purchase evidence sent with a claim for a purchase that is not stored. */
  @Column('jsonb', { nullable: true }) purchase: Record<string, unknown> | null;
  @Column('text', { nullable: true }) note: string | null;
  @Column('text', { name: 'decision_note', nullable: true }) decisionNote: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'decided_at', nullable: true }) decidedAt: Date | null;
}
