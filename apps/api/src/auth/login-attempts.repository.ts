import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { returnedRows } from '@app/db';

export interface LoginPolicy {
  /** Failures (completed or still being checked) allowed in a window before the lock. */
  maxFailures: number;
  /** Length of the failure window and of the lock. */
  lockMinutes: number;
}

export type Reservation =
  { allowed: true; failuresBefore: number } | { allowed: false; retryAfterSeconds: number };

/**
 * The lockout counters (login_attempt), one row per e-mail key. Every attempt is counted and the
 * decision taken in one upsert before the password is checked (row lock: concurrent attempts are
 * decided one after the other), so a burst can never have more checks than the policy allows.
 */
@Injectable()
export class LoginAttemptsRepository {
  constructor(private readonly db: DataSource) {}

  async reserve(key: string, p: LoginPolicy): Promise<Reservation> {
    // stale: the lock has lapsed, or the window has with no lock: the row starts over.
    const stale = `(a.locked_until <= now() OR (a.locked_until IS NULL AND a.window_started_at <= now() - make_interval(mins => $3)))`;
    const lockedNow = `(a.locked_until > now())`;
    const over = `(a.failures + a.in_flight + 1 > $2)`;
    const [row]: { failures: number; allowed: boolean; seconds: number }[] = await this.db.query(
      `INSERT INTO login_attempt AS a (email_key, failures, in_flight, window_started_at)
       VALUES ($1, 0, 1, now())
       ON CONFLICT (email_key) DO UPDATE SET
         failures = CASE WHEN ${stale} THEN 0 ELSE a.failures END,
         in_flight = CASE WHEN ${stale} THEN 1 WHEN ${lockedNow} OR ${over} THEN a.in_flight ELSE a.in_flight + 1 END,
         window_started_at = CASE WHEN ${stale} THEN now() ELSE a.window_started_at END,
         locked_until = CASE WHEN ${stale} THEN NULL WHEN ${lockedNow} THEN a.locked_until
                             WHEN ${over} THEN now() + make_interval(mins => $3) ELSE NULL END
       RETURNING failures, (locked_until IS NULL) AS allowed,
                 GREATEST(1, ceil(extract(epoch FROM locked_until - now())))::int AS seconds`,
      [key, p.maxFailures, p.lockMinutes],
    );
    return row.allowed
      ? { allowed: true, failuresBefore: row.failures }
      : { allowed: false, retryAfterSeconds: row.seconds };
  }

  /** A wrong password: counted; true when this failure set the lock. */
  async fail(key: string, p: LoginPolicy): Promise<boolean> {
    const [row] = returnedRows<{ newly_locked: boolean }>(
      await this.db.query(
        `UPDATE login_attempt a
            SET in_flight = GREATEST(a.in_flight - 1, 0), failures = a.failures + 1,
                locked_until = CASE WHEN a.locked_until IS NULL AND a.failures + 1 >= $2
                                    THEN now() + make_interval(mins => $3) ELSE a.locked_until END
          WHERE email_key = $1
        RETURNING (a.locked_until IS NOT NULL AND a.failures = $2) AS newly_locked`,
        [key, p.maxFailures, p.lockMinutes],
      ),
    );
    return !!row?.newly_locked;
  }

  /**
   * The right password: its own attempt and the failures completed before it started are
   * forgotten; failures made in parallel, and any lock they set, stay.
   */
  async succeed(key: string, failuresBefore: number): Promise<void> {
    await this.db.query(
      `UPDATE login_attempt
          SET in_flight = GREATEST(in_flight - 1, 0), failures = GREATEST(failures - $2, 0)
        WHERE email_key = $1`,
      [key, failuresBefore],
    );
  }
}
