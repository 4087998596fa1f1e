import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { ErasedCounts, ErasureStatus, ErasureWait } from '@app/domain';
import type { Institution } from './institution.entity';
import type { Offer } from './offer.entity';

/**
 * One request to erase a cardholder (docs/privacy.md), and afterwards the record of it: who asked,
 * when, and what was erased. The token is held only while the erasure is pending.
 */
@Entity('cardholder_erasure')
@Index('cardholder_erasure_due_idx', ['nextAttemptAt'], { where: "status = 'pending'" })
@Index('cardholder_erasure_token_idx', ['institutionId', 'cardholderToken'], {
  where: "status = 'pending'",
})
export class CardholderErasure {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('text', { default: 'pending' }) status: ErasureStatus;
  /** The token to erase while pending; null once completed. */
  @Column('text', { name: 'cardholder_token', nullable: true }) cardholderToken: string | null;
  /** The API key that asked (name and hint), never the token. */
  @Column('text', { name: 'requested_by' }) requestedBy: string;
  @Column('timestamptz', { name: 'requested_at', default: () => 'now()' }) requestedAt: Date;
  /** When the worker tries it (again): a pending delivery for the cardholder puts it off. */
  @Column('timestamptz', { name: 'next_attempt_at', default: () => 'now()' }) nextAttemptAt: Date;
  /** Why it waited at the last try (legal_hold, pending_deliveries); null once completed. */
  @Column('text', { name: 'waiting_for', nullable: true }) waitingFor: ErasureWait | null;
  /** Pending deliveries for the cardholder at the last try. */
  @Column('int', { name: 'waiting_deliveries', default: 0 }) waitingDeliveries: number;
  @Column('timestamptz', { name: 'completed_at', nullable: true }) completedAt: Date | null;
  @Column('jsonb', { nullable: true }) erased: ErasedCounts | null;
}

/**
 * An erased cardholder's holdout bucket for an offer (0–9999), computed from the token at erasure
 * and kept with the pseudonym: the lift report keeps the group the cardholder was in.
 */
@Entity('erased_holdout_bucket')
export class ErasedHoldoutBucket {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @PrimaryColumn('text', { name: 'cardholder_token' }) cardholderToken: string;
  @PrimaryColumn('uuid', { name: 'offer_id' }) offerId: string;
  @ManyToOne('Offer')
  @JoinColumn({ name: 'offer_id' })
  offer?: Offer;
  @Column('int') bucket: number;
}
