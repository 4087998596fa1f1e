import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { EngagementKind } from '@app/domain';
import { VIEWER_CHUNK_BITS } from '../migrations/1763800500200-funnel-viewer-bitmaps';
import { NOT_SYNCED } from './schema-allow-list';

// The funnel: raw widget events, and the rollups a trigger on engagement_event keeps (hourly
// counts; distinct viewers as bitmaps over per-institution cardholder numbers). No foreign keys:
// events are written on the hot path and kept apart from the records they count.

/**
 * Partitioned by UTC month of occurred_at (allow-listed: TypeORM cannot create partitions; the
 * worker creates them ahead and retention drops them, libs/core/src/data-lifecycle). The key
 * holds the tenant and the partition key.
 */
@Entity('engagement_event', { synchronize: false })
@Index('engagement_event_funnel_idx', ['institutionId', 'kind', 'occurredAt'], NOT_SYNCED)
// An erasure finds a cardholder's events (docs/privacy.md).
@Index('engagement_event_cardholder_idx', ['institutionId', 'cardholderToken'])
export class EngagementEvent {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('timestamptz', { name: 'occurred_at', default: () => 'now()' }) occurredAt: Date;
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @Column('text') kind: EngagementKind;
  @Column('text', { name: 'cardholder_token' }) cardholderToken: string;
  @Column('uuid', { name: 'offer_id', nullable: true }) offerId: string | null;
}

/** Events per institution, kind and UTC hour. */
@Entity('engagement_hourly')
export class EngagementHourly {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('text') kind: EngagementKind;
  @PrimaryColumn('timestamptz') hour: Date;
  @Column('bigint') count: string;
}

/** The next cardholder number of an institution. */
@Entity('engagement_number_counter')
export class EngagementNumberCounter {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @Column('int') next: number;
}

/** A viewing cardholder's number within its institution: its bit in the viewer bitmaps. */
@Entity('engagement_cardholder_number')
export class EngagementCardholderNumber {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('text', { name: 'cardholder_token' }) cardholderToken: string;
  @Column('int') n: number;
}

/** Who viewed the widget in a UTC hour: bit n % VIEWER_CHUNK_BITS of chunk n / VIEWER_CHUNK_BITS. */
@Entity('engagement_viewers_hourly')
export class EngagementViewersHourly {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('timestamptz') hour: Date;
  @PrimaryColumn('int') chunk: number;
  @Column({ type: 'bit', length: VIEWER_CHUNK_BITS }) bits: string;
}

/** The same per UTC day. */
@Entity('engagement_viewers_daily')
export class EngagementViewersDaily {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('date') day: string;
  @PrimaryColumn('int') chunk: number;
  @Column({ type: 'bit', length: VIEWER_CHUNK_BITS }) bits: string;
}
