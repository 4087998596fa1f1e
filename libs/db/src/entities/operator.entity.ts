import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import type { AuditActorType, OperatorRole, OperatorStatus } from '@app/domain';

/** A named operator (docs/operators.md); the e-mail is stored lower-cased. */
@Entity('operator')
@Unique('operator_email_key', ['email'])
export class Operator {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') email: string;
  @Column('text') name: string;
  @Column('text', { name: 'password_hash', select: false }) passwordHash: string;
  @Column('text') role: OperatorRole;
  @Column('text', { default: 'active' }) status: OperatorStatus;
  @Column('timestamptz', { name: 'last_login_at', nullable: true }) lastLoginAt: Date | null;
  @Column('timestamptz', { name: 'disabled_at', nullable: true }) disabledAt: Date | null;
  /** Encrypted (libs/core/src/secrets.ts); set once enrolment is confirmed. */
  @Column('text', { name: 'totp_secret', nullable: true, select: false }) totpSecret: string | null;
  /** Encrypted; between the start of an enrolment and its confirmation. */
  @Column('text', { name: 'totp_pending_secret', nullable: true, select: false })
  totpPendingSecret: string | null;
  @Column('timestamptz', { name: 'totp_enabled_at', nullable: true }) totpEnabledAt: Date | null;
  /** The last TOTP time step accepted: a code is refused at or before it. */
  @Column('bigint', { name: 'totp_last_step', nullable: true }) totpLastStep: string | null;
  /** SHA-256 of each unused recovery code. */
  @Column('text', {
    name: 'recovery_code_hashes',
    array: true,
    default: () => "'{}'",
    select: false,
  })
  recoveryCodeHashes: string[];
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}

/** A personal operator token; only the SHA-256 of the plaintext is stored, `hint` is prefix + last 4. */
@Entity('operator_token')
@Unique('operator_token_hash_key', ['tokenHash'])
@Index('operator_token_operator_idx', ['operatorId'])
export class OperatorToken {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'operator_id' }) operatorId: string;
  @ManyToOne(() => Operator, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'operator_id' })
  operator?: Operator;
  @Column('text') name: string;
  @Column('text', { name: 'token_hash', select: false }) tokenHash: string;
  @Column('text') hint: string;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/** A console session; the cookie holds the token, the table only its SHA-256. */
@Entity('operator_session')
@Unique('operator_session_token_hash_key', ['tokenHash'])
@Index('operator_session_operator_idx', ['operatorId'])
export class OperatorSession {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'operator_id' }) operatorId: string;
  @ManyToOne(() => Operator, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'operator_id' })
  operator?: Operator;
  @Column('text', { name: 'token_hash' }) tokenHash: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'last_seen_at', default: () => 'now()' }) lastSeenAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
}

/**
 * The audit log (docs/operators.md): append-only (a trigger refuses UPDATE, DELETE and TRUNCATE),
 * hash-chained in `seq` order. No foreign keys: it outlives what it names.
 */
@Entity('audit_log')
@Unique('audit_log_id_key', ['id'])
@Index('audit_log_created_idx', ['createdAt', 'id'])
@Index('audit_log_resource_idx', ['resourceType', 'resourceId', 'createdAt', 'id'])
@Index('audit_log_actor_idx', ['actorType', 'actorId', 'createdAt', 'id'])
@Index('audit_log_institution_idx', ['institutionId', 'createdAt', 'id'])
export class AuditLogEntry {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) seq: string;
  @Column('uuid') id: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('text', { name: 'actor_type' }) actorType: AuditActorType;
  @Column('uuid', { name: 'actor_id', nullable: true }) actorId: string | null;
  @Column('text', { name: 'actor_email', nullable: true }) actorEmail: string | null;
  @Column('text') action: string;
  @Column('text', { name: 'resource_type' }) resourceType: string;
  @Column('text', { name: 'resource_id', nullable: true }) resourceId: string | null;
  @Column('uuid', { name: 'institution_id', nullable: true }) institutionId: string | null;
  @Column('jsonb', { nullable: true }) before: unknown;
  @Column('jsonb', { nullable: true }) after: unknown;
  @Column('text', { name: 'request_id', nullable: true }) requestId: string | null;
  @Column('text', { nullable: true }) ip: string | null;
  @Column('text', { name: 'prev_hash', nullable: true }) prevHash: string | null;
  @Column('text') hash: string;
}
