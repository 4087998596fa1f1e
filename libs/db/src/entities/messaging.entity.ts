import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type {
  DeliveryStatus,
  EngagementKind,
  ReplayStatus,
  UploadStatus,
  WebhookErrorClass,
  WebhookEventType,
} from '@app/domain';

/** One event to send to an institution's webhook URL; also the outbox row for its queue job. */
@Entity('webhook_delivery')
export class WebhookDelivery {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  /** Null only for a `webhook.test` event. */
  @Column('uuid', { name: 'redemption_id', nullable: true }) redemptionId: string | null;
  @Column('text') event: WebhookEventType;
  @Column('jsonb') payload: Record<string, unknown>;
  @Column('text', { default: 'pending' }) status: DeliveryStatus;
  @Column('int', { name: 'attempt_count', default: 0 }) attemptCount: number;
  @Column('int', { name: 'redelivery_count', default: 0 }) redeliveryCount: number;
  @Column('timestamptz', { name: 'next_attempt_at', nullable: true }) nextAttemptAt: Date | null;
  @Column('timestamptz', { name: 'enqueued_at', nullable: true }) enqueuedAt: Date | null;
  @Column('timestamptz', { name: 'last_attempt_at', nullable: true }) lastAttemptAt: Date | null;
  @Column('timestamptz', { name: 'delivered_at', nullable: true }) deliveredAt: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  /** Attempts made in the current series (automatic, or one manual redelivery). */
  @Column('int', { name: 'series_attempt_count', default: 0 }) seriesAttemptCount: number;
  /** The attempt in flight: who holds it and until when (see libs/core/src/webhooks/webhook-store.ts). */
  @Column('uuid', { name: 'lease_token', nullable: true }) leaseToken: string | null;
  @Column('timestamptz', { name: 'lease_until', nullable: true }) leaseUntil: Date | null;
  @Column('timestamptz', { name: 'lease_started_at', nullable: true }) leaseStartedAt: Date | null;
  @Column('text', { name: 'lease_url', nullable: true }) leaseUrl: string | null;
  /** Why skipped or failed: no_webhook_url, no_signing_secret, signing_secret_unreadable, gone, attempts_exhausted, manual_attempt_failed. */
  @Column('text', { name: 'status_reason', nullable: true }) statusReason: string | null;
}

@Entity('webhook_attempt')
export class WebhookAttempt {
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

/** A bulk redelivery of the failed deliveries created in [since, until), paced by the worker. */
@Entity('webhook_replay')
export class WebhookReplay {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
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
export class InboxMessage {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
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
export class CsvUpload {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
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
}

@Entity('engagement_event')
export class EngagementEvent {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' }) id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  @Column('text') kind: EngagementKind;
  @Column('text', { name: 'cardholder_token' }) cardholderToken: string;
  @Column('uuid', { name: 'offer_id', nullable: true }) offerId: string | null;
  @Column('timestamptz', { name: 'occurred_at', default: () => 'now()' }) occurredAt: Date;
}
