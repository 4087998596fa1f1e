import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { PortalRole } from '@app/domain';

/** An API key. Only the SHA-256 of the plaintext is stored; `hint` is prefix + last 4. */
@Entity('api_key')
export class ApiKey {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  @Column('text') name: string;
  @Column('text', { name: 'key_hash', select: false }) keyHash: string;
  @Column('text') hint: string;
  /** NULL: a key from before scopes, holding all three. */
  @Column('text', { array: true, nullable: true }) scopes: string[] | null;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
  @Column('uuid', { name: 'created_by_user_id', nullable: true }) createdByUserId: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

@Entity('api_key_reminder')
export class ApiKeyReminder {
  @PrimaryColumn('uuid', { name: 'api_key_id' }) apiKeyId: string;
  @PrimaryColumn('int', { name: 'days_before' }) daysBefore: 14 | 3 | 0;
  @Column('timestamptz', { name: 'sent_at', default: () => 'now()' }) sentAt: Date;
}

@Entity('portal_user')
export class PortalUser {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  @Column('text') email: string;
  @Column('text', { name: 'password_hash', select: false }) passwordHash: string;
  @Column('text') role: PortalRole;
  @Column('int', { name: 'failed_login_count', default: 0 }) failedLoginCount: number;
  @Column('timestamptz', { name: 'locked_until', nullable: true }) lockedUntil: Date | null;
  @Column('timestamptz', { name: 'last_login_at', nullable: true }) lastLoginAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/** A portal login session; the cookie holds the token, the table only its SHA-256. */
@Entity('session')
export class Session {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text', { name: 'token_hash' }) tokenHash: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
}

@Entity('security_event')
export class SecurityEvent {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  /** e.g. api_key.created, api_key.revoked, webhook.secret_rotated, webhook.url_changed, login.succeeded */
  @Column('text') type: string;
  /** Who did it: a portal user's e-mail, `operator`, or `system`. */
  @Column('text') actor: string;
  @Column('jsonb', { default: {} }) details: Record<string, unknown>;
  @Column('text', { nullable: true }) ip: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
