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
} from 'typeorm';
import type {
  DeliveryStatus,
  ReplayStatus,
  UploadStatus,
  WebhookErrorClass,
  WebhookEventType,
} from '@app/domain';
import type { Institution } from './institution.entity';
import type { Redemption } from './redemption.entity';
import { NOT_SYNCED } from './schema-allow-list';

/**
 * One event to send to an institution's webhook URL; also the outbox row for its queue job.
 * Partitioned by UTC month of created_at (docs/retention.md): the primary key holds the tenant and
 * the partition key; a delivery is found by id through WebhookDeliveryKey.
 */
@Entity('webhook_delivery', { synchronize: false })
@Index('webhook_delivery_status_idx', ['institutionId', 'status', 'createdAt', 'id'], NOT_SYNCED)
@Index('webhook_delivery_event_idx', ['institutionId', 'event', 'createdAt', 'id'], NOT_SYNCED)
@Index('webhook_delivery_offer_idx', { synchronize: false })
// Outbox: deliveries committed but not yet handed to the queue.
@Index('webhook_delivery_unqueued_idx', ['createdAt'], {
  where: "(status = 'pending') AND (enqueued_at IS NULL)",
})
@Index('webhook_delivery_due_idx', ['nextAttemptAt'], { where: "status = 'pending'" })
@Index('webhook_delivery_last_attempt_idx', ['institutionId', 'lastAttemptAt'], {
  where: "status = ANY (ARRAY['delivered', 'failed'])",
})
// A replay walks one institution's failed deliveries, a resumed URL its pending ones, in order.
@Index('webhook_delivery_failed_idx', ['institutionId', 'createdAt', 'id'], {
  where: "status = 'failed'",
})
@Index('webhook_delivery_pending_idx', ['institutionId', 'createdAt', 'id'], {
  where: "status = 'pending'",
})
export class WebhookDelivery {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @PrimaryGeneratedColumn('uuid') id: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  /** Null only for a `webhook.test` event. */
  @Column('uuid', { name: 'redemption_id', nullable: true }) redemptionId: string | null;
  @ManyToOne('Redemption')
  @JoinColumn([
    { name: 'redemption_id', referencedColumnName: 'id' },
    { name: 'institution_id', referencedColumnName: 'institutionId' },
  ])
  redemption?: Redemption | null;
  @Column('text') event: WebhookEventType;
  @Column('jsonb') payload: Record<string, unknown>;
  @Column('text', { default: 'pending' }) status: DeliveryStatus;
  @Column('int', { name: 'attempt_count', default: 0 }) attemptCount: number;
  @Column('int', { name: 'redelivery_count', default: 0 }) redeliveryCount: number;
  @Column('timestamptz', { name: 'next_attempt_at', nullable: true }) nextAttemptAt: Date | null;
  @Column('timestamptz', { name: 'enqueued_at', nullable: true }) enqueuedAt: Date | null;
  @Column('timestamptz', { name: 'last_attempt_at', nullable: true }) lastAttemptAt: Date | null;
  @Column('timestamptz', { name: 'delivered_at', nullable: true }) deliveredAt: Date | null;
  /** Attempts made in the current series (automatic, or one manual redelivery). */
  @Column('int', { name: 'series_attempt_count', default: 0 }) seriesAttemptCount: number;
  /** The attempt in flight: who holds it and until when (see libs/core/src/webhooks/webhook-schedule.repository.ts). */
  @Column('uuid', { name: 'lease_token', nullable: true }) leaseToken: string | null;
  @Column('timestamptz', { name: 'lease_until', nullable: true }) leaseUntil: Date | null;
  @Column('timestamptz', { name: 'lease_started_at', nullable: true }) leaseStartedAt: Date | null;
  @Column('text', { name: 'lease_url', nullable: true }) leaseUrl: string | null;
  /** Why skipped or failed: no_webhook_url, no_signing_secret, signing_secret_unreadable, gone, attempts_exhausted, manual_attempt_failed. */
  @Column('text', { name: 'status_reason', nullable: true }) statusReason: string | null;
}

/**
 * One try of a delivery, partitioned by its delivery's month (delivery_created_at): a delivery and
 * its attempts leave together. No foreign key to the delivery (a partition of a referenced table
 * cannot be dropped); an attempt is written only by the statement that updates its delivery.
 */
@Entity('webhook_attempt', { synchronize: false })
@Unique('webhook_attempt_number_unique', [
  'institutionId',
  'deliveryCreatedAt',
  'deliveryId',
  'attemptNumber',
])
export class WebhookAttempt {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('timestamptz', { name: 'delivery_created_at' }) deliveryCreatedAt: Date;
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'delivery_id' }) deliveryId: string;
  @Column('int', { name: 'attempt_number' }) attemptNumber: number;
  @Column('text') trigger: 'automatic' | 'manual';
  @Column('text', { nullable: true }) url: string | null;
  @Column('timestamptz', { name: 'started_at' }) startedAt: Date;
  @Column('int', { name: 'duration_ms' }) durationMs: number;
  @Column('int', { name: 'http_status', nullable: true }) httpStatus: number | null;
  @Column('text', { name: 'error_class', nullable: true }) errorClass: WebhookErrorClass | null;
  @Column('text', { name: 'error_message', nullable: true }) errorMessage: string | null;
  /** First 4 KiB of the response body. */
  @Column('text', { name: 'response_excerpt', nullable: true }) responseExcerpt: string | null;
  /** The headers sent, signatures shortened (null for an interrupted attempt). */
  @Column('jsonb', { name: 'request_headers', nullable: true })
  requestHeaders: Record<string, string> | null;
}

/**
 * Every delivery's tenant and month by id (not partitioned, never dropped by retention): a read by
 * delivery id names the month (the queue job carries only the id), and the one delivery per
 * redemption and event, which has no time bound. Written by the webhook_delivery_key_insert
 * trigger for every insert into webhook_delivery.
 */
@Entity('webhook_delivery_key')
@Unique('webhook_delivery_key_event_unique', ['institutionId', 'redemptionId', 'event'])
@Index('webhook_delivery_key_id_idx', ['id'])
export class WebhookDeliveryKey {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @PrimaryColumn('uuid') id: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('uuid', { name: 'redemption_id', nullable: true }) redemptionId: string | null;
  @Column('text') event: WebhookEventType;
}

/** A bulk redelivery of the failed deliveries created in [since, until), paced by the worker. */
@Entity('webhook_replay')
@Index('webhook_replay_institution_idx', ['institutionId', 'createdAt'], NOT_SYNCED)
// At most one running replay per institution.
@Index('webhook_replay_running_idx', ['institutionId'], {
  unique: true,
  where: "status = 'running'",
})
export class WebhookReplay {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution')
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('timestamptz') since: Date;
  @Column('timestamptz') until: Date;
  @Column('text', { default: 'running' }) status: ReplayStatus;
  @Column('int') total: number;
  @Column('int', { default: 0 }) done: number;
  @Column('timestamptz', { name: 'cursor_created_at', nullable: true })
  cursorCreatedAt: Date | null;
  @Column('uuid', { name: 'cursor_id', nullable: true }) cursorId: string | null;
  @Column('timestamptz', { name: 'stepped_at', nullable: true }) steppedAt: Date | null;
  @Column('text', { name: 'requested_by' }) requestedBy: string;
  /** Deliveries a second, fixed when requested; null: the stepping worker's setting. */
  @Column('int', { name: 'per_second', nullable: true }) perSecond: number | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'finished_at', nullable: true }) finishedAt: Date | null;
}

@Entity('inbox_message')
@Unique('inbox_message_dedupe_unique', ['institutionId', 'dedupeKey'])
@Index('inbox_message_report_idx', ['institutionId', 'createdAt', 'id'], NOT_SYNCED)
@Index('inbox_message_unread_idx', ['institutionId'], { where: 'read_at IS NULL' })
export class InboxMessage {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  /** e.g. webhook.failed, api_key.expiring */
  @Column('text') kind: string;
  @Column('text') title: string;
  @Column('text') body: string;
  /** Makes a message idempotent: the same key is written once per institution. */
  @Column('text', { name: 'dedupe_key', nullable: true }) dedupeKey: string | null;
  @Column('timestamptz', { name: 'read_at', nullable: true }) readAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

export interface InvalidLine {
  line: number;
  errors: { field: string; message: string }[];
}

@Entity('csv_upload')
@Index('csv_upload_report_idx', ['institutionId', 'createdAt', 'id'], NOT_SYNCED)
@Index('csv_upload_pending_idx', ['createdAt'], {
  where: "status = ANY (ARRAY['queued', 'processing'])",
})
export class CsvUpload {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  /** Who uploaded (a portal user; no foreign key: a tenant table refers to no global one). */
  @Column('uuid', { name: 'uploaded_by_user_id', nullable: true }) uploadedByUserId: string | null;
  @Column('text') filename: string;
  @Column('int', { name: 'size_bytes' }) sizeBytes: number;
  @Column('bytea', { nullable: true, select: false }) content: Buffer | null;
  @Column('text', { default: 'queued' }) status: UploadStatus;
  @Column('int', { name: 'rows_total', nullable: true }) rowsTotal: number | null;
  @Column('int', { name: 'rows_processed', default: 0 }) rowsProcessed: number;
  @Column('int', { default: 0 }) accepted: number;
  @Column('int', { default: 0 }) duplicates: number;
  /** The first 1,000 refused lines; invalid_count counts them all. */
  @Column('jsonb', { default: [] }) invalid: InvalidLine[];
  @Column('int', { name: 'invalid_count', default: 0 }) invalidCount: number;
  @Column('int', { name: 'blank_lines_skipped', default: 0 }) blankLinesSkipped: number;
  @Column('text', { name: 'error_message', nullable: true }) errorMessage: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'started_at', nullable: true }) startedAt: Date | null;
  @Column('timestamptz', { name: 'completed_at', nullable: true }) completedAt: Date | null;
  /** Past purchases for audiences and personalization (stored, never matched). */
  @Column('boolean', { default: false }) history: boolean;
}
