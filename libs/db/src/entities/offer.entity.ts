import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import type {
  AuditActor,
  OfferStatus,
  OfferVersionStatus,
  RewardType,
  StoredQualification,
} from '@app/domain';
import type { Institution } from './institution.entity';
import type { Merchant } from './merchant.entity';
import { NOT_SYNCED } from './schema-allow-list';
import { numeric } from './transformers';

export type OfferTranslations = Record<string, { title: string; description: string }>;

/** Money columns are integer minor units of `currency`. */
@Entity('offer')
@Index('offer_live_idx', ['expiresAt', 'startsAt'], { where: "status = 'active'" })
@Index('offer_merchant_idx', ['merchantId'])
@Index('offer_created_idx', ['createdAt', 'id'], NOT_SYNCED)
export class Offer {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'merchant_id' }) merchantId: string;
  @ManyToOne('Merchant')
  @JoinColumn({ name: 'merchant_id' })
  merchant?: Merchant;
  @Column('text') status: OfferStatus;
  @Column('jsonb') translations: OfferTranslations;
  @Column('bigint', { name: 'min_spend', default: 0, transformer: numeric }) minSpend: number;
  @Column('text', { name: 'reward_type', default: 'fixed' }) rewardType: RewardType;
  /** Fixed reward, or the cap of a percent reward. */
  @Column('bigint', { name: 'cashback_amount', transformer: numeric }) cashbackAmount: number;
  @Column('numeric', {
    name: 'cashback_percent',
    precision: 7,
    scale: 4,
    nullable: true,
    transformer: numeric,
  })
  cashbackPercent: number | null;
  @Column('bigint', { name: 'merchant_fee_amount', default: 0, transformer: numeric })
  merchantFeeAmount: number;
  @Column('char', { length: 3 }) currency: string;
  @Column('timestamptz', { name: 'starts_at' }) startsAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
  /** Merchant-funded cap; null = unlimited. */
  @Column('bigint', { name: 'budget_total', nullable: true, transformer: numeric }) budgetTotal:
    number | null;
  /** Empty = unrestricted. */
  @Column('text', { array: true, default: () => "'{}'" }) segments: string[];
  @Column('int', { name: 'max_redemptions_per_cardholder', default: 1 })
  maxRedemptionsPerCardholder: number;
  @Column('int', { default: 0 }) priority: number;
  /** False: offered to every institution; true: only to those in offer_target. */
  @Column('boolean', { default: false }) targeted: boolean;
  /** Goal offers: purchase_count or cumulative_spend, null = no goal. */
  @Column('text', { name: 'goal_type', nullable: true }) goalType: string | null;
  /** Purchases, or minor units of `currency` for cumulative_spend. */
  @Column('bigint', { name: 'goal_target', nullable: true, transformer: numeric }) goalTarget:
    number | null;
  /** Terms beyond amount and dates (days, hours, channels, audience...); null = none. */
  @Column('jsonb', { nullable: true }) qualification: StoredQualification | null;
  /** Holdout share in basis points (0–5000, 0 = none; docs/lift.md). */
  @Column('int', { name: 'holdout_bps', default: 0 }) holdoutBps: number;
  /** Set once the offer has been active at or after starts_at: the holdout is then fixed. */
  @Column('boolean', { name: 'has_been_live', default: false }) hasBeenLive: boolean;
  /** When the live terms took effect (their approval); null = every purchase (offer_version). */
  @Column('timestamptz', { name: 'terms_from', nullable: true }) termsFrom: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}

/** The institutions a targeted offer is offered to. */
@Entity('offer_target')
@Index('offer_target_institution_idx', ['institutionId', 'offerId'])
export class OfferTarget {
  @PrimaryColumn('uuid', { name: 'offer_id' }) offerId: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne(() => Offer, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'offer_id' })
  offer?: Offer;
  @ManyToOne('Institution', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
}

/**
 * A version of an offer's terms (docs/offers.md, Versions and approval): reference data like the
 * offer, keyed by the offer. `terms` are the offer's columns as stored; actors as the audit log
 * names them.
 */
@Entity('offer_version')
@Unique('offer_version_id_key', ['offerId', 'id'])
export class OfferVersion {
  @PrimaryColumn('uuid', { name: 'offer_id' }) offerId: string;
  @PrimaryColumn('int') number: number;
  @ManyToOne(() => Offer, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'offer_id' })
  offer?: Offer;
  @Column('uuid', { default: () => 'gen_random_uuid()' }) id: string;
  @Column('text') status: OfferVersionStatus;
  @Column('jsonb') terms: Record<string, unknown>;
  @Column('jsonb', { default: () => "'[]'" }) changes: unknown[];
  @Column('jsonb', { name: 'created_by' }) createdBy: AuditActor;
  @Column('jsonb', { name: 'changed_by' }) changedBy: AuditActor;
  /** Operators who changed it since its last approval: none of them may approve it. */
  @Column('uuid', { array: true, default: () => "'{}'" }) editors: string[];
  @Column('jsonb', { name: 'approved_by', nullable: true }) approvedBy: AuditActor | null;
  @Column('timestamptz', { name: 'approved_at', nullable: true }) approvedAt: Date | null;
  /** From when it judges purchases; null = every purchase (an edit made with approval off). */
  @Column('timestamptz', { name: 'effective_from', nullable: true }) effectiveFrom: Date | null;
  @Column('text', { name: 'review_note', nullable: true }) reviewNote: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}

/**
 * An offer's budget spent so far (minor units, merchant funded), one row per offer made by a
 * trigger on offer's insert (schema-allow-list.ts). Apart from the offer because every
 * redemption writes it: offer is a reference table, this one stays on the coordinator
 * (libs/db/src/schema-classes.ts).
 */
@Entity('offer_budget')
export class OfferBudget {
  @PrimaryColumn('uuid', { name: 'offer_id' }) offerId: string;
  @ManyToOne(() => Offer, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'offer_id' })
  offer?: Offer;
  @Column('bigint', { name: 'budget_used', default: 0, transformer: numeric }) budgetUsed: number;
}
