import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { DEFAULT_EVENT_TYPES, type Plan } from '@app/domain';

/** Per-institution overrides of requests per minute, by scope group. */
export interface RateLimitOverrides {
  offers?: number;
  transactions?: number;
  reporting?: number;
  /** Not settable through the admin API: the privacy routes use the default limit. */
  privacy?: number;
  claims?: number;
}

@Entity('institution')
export class Institution {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') name: string;
  @Column('text') plan: Plan;
  @Column('text', { default: 'active' }) status: 'active' | 'suspended';
  @Column('text', { name: 'webhook_url', nullable: true }) webhookUrl: string | null;
  /** AES-256-GCM under SECRETS_KEY; never logged, never returned. */
  @Column('text', { name: 'webhook_secret_encrypted', nullable: true, select: false })
  webhookSecretEncrypted: string | null;
  /** The secret before the last rotation, still signing until the expiry below (encrypted too). */
  @Column('text', { name: 'webhook_previous_secret_encrypted', nullable: true, select: false })
  webhookPreviousSecretEncrypted: string | null;
  @Column('timestamptz', { name: 'webhook_previous_secret_expires_at', nullable: true })
  webhookPreviousSecretExpiresAt: Date | null;
  /** Custom request headers (JSON list of {name, value}), encrypted like the secret; never logged. */
  @Column('text', { name: 'webhook_headers_encrypted', nullable: true, select: false })
  webhookHeadersEncrypted: string | null;
  @Column('int', { name: 'webhook_max_per_second', nullable: true })
  webhookMaxPerSecond: number | null;
  /** First failed attempt since the last success (for pausing a URL that keeps failing). */
  @Column('timestamptz', { name: 'webhook_failing_since', nullable: true })
  webhookFailingSince: Date | null;
  /** Set when the URL was paused after failing for WEBHOOK_DISABLE_AFTER_DAYS. */
  @Column('timestamptz', { name: 'webhook_disabled_at', nullable: true })
  webhookDisabledAt: Date | null;
  /** Mutual TLS client certificate and key (PEM), encrypted; subject and expiry for display. */
  @Column('text', { name: 'webhook_client_cert_encrypted', nullable: true, select: false })
  webhookClientCertEncrypted: string | null;
  @Column('text', { name: 'webhook_client_key_encrypted', nullable: true, select: false })
  webhookClientKeyEncrypted: string | null;
  @Column('text', { name: 'webhook_client_cert_subject', nullable: true })
  webhookClientCertSubject: string | null;
  @Column('timestamptz', { name: 'webhook_client_cert_expires_at', nullable: true })
  webhookClientCertExpiresAt: Date | null;
  /** Event types delivered to the webhook URL (webhook.test is sent on request only). */
  @Column('text', {
    name: 'webhook_event_types',
    array: true,
    default: () => `ARRAY[${DEFAULT_EVENT_TYPES.map((t) => `'${t}'`).join(', ')}]`,
  })
  webhookEventTypes: string[];
  @Column('jsonb', { name: 'rate_limits', default: {} }) rateLimits: RateLimitOverrides;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
