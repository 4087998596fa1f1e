import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { PROGRAM_DEFAULTS, type Locale, type SortOrder } from '@app/domain';
import type { Institution } from './institution.entity';

/** An institution's offer program: one per institution. */
@Entity('program')
@Unique('program_institution_id_key', ['institutionId'])
export class Program {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  // Many-to-one with a unique key rather than TypeORM's one-to-one, whose unique constraint
  // would carry a generated name instead of the schema's.
  @ManyToOne('Institution', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  /** Ordered: the first is the default language. */
  @Column('text', {
    name: 'supported_locales',
    array: true,
    default: () => `'{${PROGRAM_DEFAULTS.supportedLocales.join(',')}}'`,
  })
  supportedLocales: Locale[];
  @Column('text', { name: 'sort_order', default: PROGRAM_DEFAULTS.sortOrder }) sortOrder: SortOrder;
  @Column('int', { name: 'max_active_offers', default: PROGRAM_DEFAULTS.maxActiveOffers })
  maxActiveOffers: number;
  @Column('int', { name: 'widget_feed_limit', default: PROGRAM_DEFAULTS.widgetFeedLimit })
  widgetFeedLimit: number;
  @Column('numeric', {
    name: 'service_share_rate',
    precision: 5,
    scale: 4,
    default: () => PROGRAM_DEFAULTS.serviceShareRate,
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  serviceShareRate: number;
  @Column('int', { name: 'settlement_hold_days', default: PROGRAM_DEFAULTS.settlementHoldDays })
  settlementHoldDays: number;
  /** IANA zone in which offers' days and hours are read; null = UTC. */
  @Column('text', { name: 'time_zone', nullable: true }) timeZone: string | null;
  /** When a card purchase is rewarded: `clearing` or `authorization`; null = clearing. */
  @Column('text', { name: 'reward_on', nullable: true }) rewardOn: string | null;
  /** Days an authorization waits for its clearing before it expires; null = 7. */
  @Column('int', { name: 'authorization_expiry_days', nullable: true })
  authorizationExpiryDays: number | null;
  /** Days after its purchase a missing reward may be claimed (docs/claims.md). */
  @Column('int', { name: 'claim_window_days', default: PROGRAM_DEFAULTS.claimWindowDays })
  claimWindowDays: number;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
