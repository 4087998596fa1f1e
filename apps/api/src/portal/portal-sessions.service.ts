import { HttpStatus, Injectable } from '@nestjs/common';
import { createHash, createHmac, randomBytes } from 'crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '@app/core';
import { safeEqual } from '@app/domain';
import { ApiError } from '../common/api-error';
import { SecurityActivityService } from '../auth/security-activity.service';
import type { PortalPrincipal } from '../auth/principal';
import { LoginAttemptsRepository } from './login-attempts.repository';
import { PortalSessionsRepository } from './portal-sessions.repository';

export const SESSION_COOKIE = 'plo_session';
/** After this many wrong passwords within LOCK_MINUTES the login is locked for LOCK_MINUTES. */
export const MAX_FAILED_LOGINS = 5;
export const LOCK_MINUTES = 15;
const LOGIN_POLICY = { maxFailures: MAX_FAILED_LOGINS, lockMinutes: LOCK_MINUTES };

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Portal logins: password check with lockout, opaque session tokens (only hashes stored), CSRF tokens. */
@Injectable()
export class PortalSessionsService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: PortalSessionsRepository,
    private readonly config: AppConfig,
    private readonly activity: SecurityActivityService,
    private readonly attempts: LoginAttemptsRepository,
  ) {}

  /**
   * Lockout first, in one statement and keyed by the e-mail alone (known or not): a locked key
   * gets 429 without any password check, so a parallel burst gets at most MAX_FAILED_LOGINS
   * checks, and an unknown e-mail is answered exactly like a known one.
   */
  async login(
    email: string,
    password: string,
    ip?: string,
  ): Promise<{ token: string; principal: PortalPrincipal; expiresAt: Date }> {
    const key = sha256(`login:${email.trim().toLowerCase()}`);
    const reservation = await this.attempts.reserve(key, LOGIN_POLICY);
    if (!reservation.allowed) {
      throw new ApiError(
        HttpStatus.TOO_MANY_REQUESTS,
        'login_locked',
        'Too many failed logins; try again later.',
        undefined,
        { 'Retry-After': String(reservation.retryAfterSeconds) },
      );
    }
    const user = await this.repo.findUserByEmail(email.trim());
    // Unknown e-mail: spend the same time on a hash so the answer's timing tells nothing.
    const ok = await verifyPassword(password, user?.password_hash ?? (await DUMMY_PASSWORD_HASH));
    if (!user || !ok) {
      const locked = await this.attempts.fail(key, LOGIN_POLICY);
      if (user)
        await this.activity.record({
          institutionId: user.institution_id,
          type: locked ? 'login.locked' : 'login.failed',
          actor: user.email,
          ip,
        });
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'invalid_credentials',
        'Wrong e-mail or password.',
      );
    }
    await this.attempts.succeed(key, reservation.failuresBefore);
    // Told only after the right password, so it reveals nothing about which e-mails exist.
    if (user.institution_status === 'suspended') {
      throw ApiError.forbidden(
        'institution_suspended',
        'Your institution is suspended, so portal sign-in is refused; contact the service operator.',
      );
    }
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.config.sessionTtlHours * 3_600_000);
    const sessionId = await this.db.transaction(async (m) => {
      const id = await this.repo.startSession(m, user.id, sha256(token), expiresAt);
      await this.activity.record(
        { institutionId: user.institution_id, type: 'login.succeeded', actor: user.email, ip },
        m,
      );
      return id;
    });
    return {
      token,
      expiresAt,
      principal: {
        sessionId,
        userId: user.id,
        email: user.email,
        role: user.role,
        institutionId: user.institution_id,
        institutionName: user.institution_name,
        plan: user.plan,
        csrfToken: this.csrfFor(token),
      },
    };
  }

  async resolve(token: string): Promise<PortalPrincipal | null> {
    const row = await this.repo.findLive(sha256(token));
    if (!row) return null;
    return {
      sessionId: row.session_id,
      userId: row.user_id,
      email: row.email,
      role: row.role,
      institutionId: row.institution_id,
      institutionName: row.institution_name,
      plan: row.plan,
      csrfToken: this.csrfFor(token),
    };
  }

  async logout(sessionId: string): Promise<void> {
    await this.repo.revoke(sessionId);
  }

  /**
   * The CSRF token is a MAC of the session token under the `csrf-mac` key: nothing more to store,
   * useless without the cookie.
   */
  csrfFor(sessionToken: string, key = this.config.keys.csrfMac): string {
    return createHmac('sha256', key).update(`csrf:${sessionToken}`).digest('base64url');
  }

  /** Also accepts, for 24 h after the upgrade, a token MACed with SECRETS_KEY itself (an open tab's). */
  csrfMatches(sessionToken: string, header: string | undefined): boolean {
    return (
      !!header &&
      this.config.keys
        .macVerifiers('csrf-mac')
        .some((key) => safeEqual(header, this.csrfFor(sessionToken, key)))
    );
  }
}
