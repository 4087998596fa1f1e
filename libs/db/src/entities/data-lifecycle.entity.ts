import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { Institution } from './institution.entity';

/** An institution whose data no retention drop removes while the hold stands (docs/retention.md). */
@Entity('legal_hold')
export class LegalHold {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('text') reason: string;
  @Column('timestamptz', { name: 'placed_at', default: () => 'now()' }) placedAt: Date;
}

/** What kept a partition past its retention, as a run records it. */
export interface KeptPartition {
  partition: string;
  reason: 'legal_hold' | 'locked' | 'pending_delivery';
  institutions?: string[];
}

/** One hour's partition upkeep and retention run, written by the one worker that took the hour. */
@Entity('data_lifecycle_run')
export class DataLifecycleRun {
  @PrimaryColumn('timestamptz') tick: Date;
  @Column('timestamptz', { name: 'started_at', default: () => 'now()' }) startedAt: Date;
  @Column('timestamptz', { name: 'finished_at', nullable: true }) finishedAt: Date | null;
  @Column('text', { name: 'created_partitions', array: true, default: () => "'{}'" })
  createdPartitions: string[];
  @Column('text', { name: 'dropped_partitions', array: true, default: () => "'{}'" })
  droppedPartitions: string[];
  @Column('jsonb', { default: [] }) kept: KeptPartition[];
  @Column('text', { nullable: true }) error: string | null;
}
