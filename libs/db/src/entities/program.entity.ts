import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  OneToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { Institution } from './institution.entity';

export const LOCALES = ['en', 'es', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];
export const SORT_ORDERS = ['featured', 'ending_soon', 'highest_cashback', 'newest'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** An institution's offer program: one per institution. */
@Entity('program')
export class Program {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  @OneToOne('Institution', (i: Institution) => i.program, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  /** Ordered: the first is the default language. */
  @Column('text', { name: 'supported_locales', array: true, default: () => "'{en}'" })
  supportedLocales: Locale[];
  @Column('text', { name: 'sort_order', default: 'featured' }) sortOrder: SortOrder;
  @Column('int', { name: 'max_active_offers', default: 10 }) maxActiveOffers: number;
  @Column('int', { name: 'widget_feed_limit', default: 20 }) widgetFeedLimit: number;
  @Column('numeric', {
    name: 'service_share_rate',
    precision: 5,
    scale: 4,
    default: 0.5,
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  serviceShareRate: number;
  @Column('int', { name: 'settlement_hold_days', default: 30 }) settlementHoldDays: number;
  /** IANA zone in which offers' days and hours are read; null = UTC. */
  @Column('text', { name: 'time_zone', nullable: true }) timeZone: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
