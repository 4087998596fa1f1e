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
import type { PortalRole } from '@app/domain';
import type { Institution } from './institution.entity';
import { NOT_SYNCED } from './schema-allow-list';

/** An API key. Only the SHA-256 of the plaintext is stored; `hint` is prefix + last 4. */
@Entity('api_key')
@Unique('api_key_hash_key', ['keyHash'])
@Index('api_key_institution_idx', ['institutionId', 'createdAt'], NOT_SYNCED)
@Index('api_key_expiring_idx', ['expiresAt'], {
  where: '(revoked_at IS NULL) AND (expires_at IS NOT NULL)',
})
export class ApiKey {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('text') name: string;
  @Column('text', { name: 'key_hash', select: false }) keyHash: string;
  @Column('text') hint: string;
  /** NULL: a key from before scopes, holding all three. */
  @Column('text', { array: true, nullable: true }) scopes: string[] | null;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
  @Column('uuid', { name: 'created_by_user_id', nullable: true }) createdByUserId: string | null;
  @ManyToOne(() => PortalUser, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by_user_id' })
  createdByUser?: PortalUser | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/** Each expiry reminder (14, 3 and 0 days before) is sent once: the primary key enforces it. */
@Entity('api_key_reminder')
export class ApiKeyReminder {
  @PrimaryColumn('uuid', { name: 'api_key_id' }) apiKeyId: string;
  @PrimaryColumn('int', { name: 'days_before' }) daysBefore: 14 | 3 | 0;
  @ManyToOne(() => ApiKey, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'api_key_id' })
  apiKey?: ApiKey;
  @Column('timestamptz', { name: 'sent_at', default: () => 'now()' }) sentAt: Date;
}

@Entity('portal_user')
@Index('portal_user_email_key', { synchronize: false })
@Index('portal_user_institution_idx', ['institutionId'])
export class PortalUser {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  /** Unique case-insensitively (portal_user_email_key on lower(email)). */
  @Column('text') email: string;
  @Column('text', { name: 'password_hash', select: false }) passwordHash: string;
  @Column('text') role: PortalRole;
  @Column('timestamptz', { name: 'last_login_at', nullable: true }) lastLoginAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/** A portal login session; the cookie holds the token, the table only its SHA-256. */
@Entity('session')
@Unique('session_token_hash_key', ['tokenHash'])
@Index('session_user_idx', ['userId'])
export class Session {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text', { name: 'token_hash' }) tokenHash: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  @ManyToOne(() => PortalUser, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: PortalUser;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
}

/**
 * Failed portal sign-ins per e-mail key (any e-mail, known or not): the lockout window and the
 * attempts in flight.
 */
@Entity('login_attempt')
export class LoginAttempt {
  @PrimaryColumn('text', { name: 'email_key' }) emailKey: string;
  @Column('int', { default: 0 }) failures: number;
  @Column('int', { name: 'in_flight', default: 0 }) inFlight: number;
  @Column('timestamptz', { name: 'window_started_at', default: () => 'now()' })
  windowStartedAt: Date;
  @Column('timestamptz', { name: 'locked_until', nullable: true }) lockedUntil: Date | null;
}

@Entity('security_event')
@Index('security_event_report_idx', ['institutionId', 'createdAt', 'id'], NOT_SYNCED)
export class SecurityEvent {
  @PrimaryGeneratedColumn('uuid') id: string;
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  /** e.g. api_key.created, api_key.revoked, webhook.secret_rotated, webhook.url_changed, login.succeeded */
  @Column('text') type: string;
  /** Who did it: a portal user's e-mail, `operator`, or `system`. */
  @Column('text') actor: string;
  @Column('jsonb', { default: {} }) details: Record<string, unknown>;
  @Column('text', { nullable: true }) ip: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/**
 * An institution's single sign-on for its staff (one row each): the OpenID Connect client at its
 * provider (`client_secret` encrypted, libs/core/src/secrets.ts), the claim and its map to roles.
 */
@Entity('institution_sso')
export class InstitutionSso {
  @PrimaryColumn('uuid', { name: 'institution_id' }) institutionId: string;
  @ManyToOne('Institution', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'institution_id' })
  institution?: Institution;
  @Column('text') issuer: string;
  @Column('text', { name: 'client_id' }) clientId: string;
  @Column('text', { name: 'client_secret', select: false }) clientSecret: string;
  @Column('text', { name: 'role_claim' }) roleClaim: string;
  @Column('jsonb', { name: 'role_map' }) roleMap: Record<string, string>;
  @Column('boolean', { name: 'password_login', default: true }) passwordLogin: boolean;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}
