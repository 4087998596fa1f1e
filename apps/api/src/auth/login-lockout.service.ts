import { HttpStatus, Injectable } from '@nestjs/common';
import { createHash } from 'crypto';
import { ApiError } from '../common/api-error';
import { LoginAttemptsRepository } from './login-attempts.repository';

/** After this many wrong passwords within LOCK_MINUTES the login is locked for LOCK_MINUTES. */
export const MAX_FAILED_LOGINS = 5;
export const LOCK_MINUTES = 15;
const LOGIN_POLICY = { maxFailures: MAX_FAILED_LOGINS, lockMinutes: LOCK_MINUTES };

/** A password check under way, counted against its e-mail's lockout. */
export interface LoginTicket {
  key: string;
  failuresBefore: number;
}

/**
 * The sign-in lockout every password login uses (portal staff and operators, each in its own key
 * space): the attempt is counted and decided before the password is checked, keyed by the
 * e-mail alone (known or not), so a locked key gets 429 without any check and a parallel burst
 * gets at most MAX_FAILED_LOGINS checks.
 */
@Injectable()
export class LoginLockout {
  constructor(private readonly attempts: LoginAttemptsRepository) {}

  /** Counts the attempt; 429 `login_locked` (with Retry-After) while the e-mail is locked. */
  async begin(space: 'portal' | 'operator', email: string): Promise<LoginTicket> {
    // The portal's keys predate the operators' and keep their form.
    const prefix = space === 'portal' ? 'login' : 'operator-login';
    const key = createHash('sha256')
      .update(`${prefix}:${email.trim().toLowerCase()}`)
      .digest('hex');
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
    return { key, failuresBefore: reservation.failuresBefore };
  }

  /** A wrong password: counted; true when this failure set the lock. */
  fail(t: LoginTicket): Promise<boolean> {
    return this.attempts.fail(t.key, LOGIN_POLICY);
  }

  /** The right password: the failures completed before it are forgotten. */
  succeed(t: LoginTicket): Promise<void> {
    return this.attempts.succeed(t.key, t.failuresBefore);
  }
}
