import { HttpStatus, Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '@app/core';
import { ApiError } from '../common/api-error';
import { csrfFor, csrfMatches } from '../auth/csrf';
import { LoginLockout } from '../auth/login-lockout.service';
import { SecurityActivityService } from '../auth/security-activity.service';
import type { PortalPrincipal } from '../auth/principal';
import { LoginUserRow, PortalSessionsRepository } from './portal-sessions.repository';

export const SESSION_COOKIE = 'plo_session';

const institutionSuspended = () =>
  ApiError.forbidden(
    'institution_suspended',
    'Your institution is suspended, so portal sign-in is refused; contact the service operator.',
  );

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Portal logins: password check with lockout, opaque session tokens (only hashes stored), CSRF tokens. */
@Injectable()
export class PortalSessionsService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: PortalSessionsRepository,
    private readonly config: AppConfig,
    private readonly activity: SecurityActivityService,
    private readonly lockout: LoginLockout,
  ) {}

  /**
   * Lockout first (LoginLockout, keyed by the e-mail alone, known or not): a locked key gets 429
   * without any password check, and an unknown e-mail is answered exactly like a known one.
   */
  async login(
    email: string,
    password: string,
    ip?: string,
  ): Promise<{ token: string; principal: PortalPrincipal; expiresAt: Date }> {
    const ticket = await this.lockout.begin('portal', email);
    const user = await this.repo.findUserByEmail(email.trim());
    // Unknown e-mail: spend the same time on a hash so the answer's timing tells nothing.
    const ok = await verifyPassword(password, user?.password_hash ?? (await DUMMY_PASSWORD_HASH));
    if (!user || !ok) {
      const locked = await this.lockout.fail(ticket);
      if (user)
        await this.activity.record({
          institutionId: user.institution_id,
          type: locked ? 'login.locked' : 'login.failed',
          actor: user.email,
          userId: user.id,
          ip,
        });
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'invalid_credentials',
        'Wrong e-mail or password.',
      );
    }
    await this.lockout.succeed(ticket);
    // Told only after the right password, so it reveals nothing about which e-mails exist.
    if (user.institution_status === 'suspended') throw institutionSuspended();
    if (!user.password_login)
      throw ApiError.forbidden(
        'password_login_disabled',
        'Your institution signs its staff in through its identity provider: use "Sign in with your institution\'s identity provider" on the sign-in page.',
      );
    return this.startSession(user, ip, 'password');
  }

  /**
   * A new portal session for a user of an active institution (after the password, or the
   * institution's identity provider): the cookie's token (only its hash stored) and
   * `login.succeeded` in the session's transaction.
   */
  async startSession(
    user: Omit<LoginUserRow, 'password_hash' | 'password_login'>,
    ip: string | undefined,
    method: 'password' | 'sso',
  ): Promise<{ token: string; principal: PortalPrincipal; expiresAt: Date }> {
    if (user.institution_status === 'suspended') throw institutionSuspended();
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.config.sessionTtlHours * 3_600_000);
    const sessionId = await this.db.transaction(async (m) => {
      const id = await this.repo.startSession(m, user.id, sha256(token), expiresAt);
      await this.activity.record(
        {
          institutionId: user.institution_id,
          type: 'login.succeeded',
          actor: user.email,
          userId: user.id,
          ip,
          ...(method === 'sso' ? { details: { method } } : {}),
        },
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

  /** The session's X-CSRF-Token (auth/csrf.ts, shared with the operators' console). */
  csrfFor(sessionToken: string): string {
    return csrfFor(this.config.keys, sessionToken);
  }

  csrfMatches(sessionToken: string, header: string | undefined): boolean {
    return csrfMatches(this.config.keys, sessionToken, header);
  }
}
