import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Portal login attempts per e-mail (known or not: the key is a hash of the normalized address),
 * so the lockout is decided in one statement before any password check and holds under
 * concurrency: failures completed, attempts still being checked, the window and the lock.
 */
export class LoginAttempts1763800500100 implements MigrationInterface {
  name = 'LoginAttempts1763800500100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE login_attempt (
        email_key text PRIMARY KEY,
        failures integer NOT NULL DEFAULT 0,
        in_flight integer NOT NULL DEFAULT 0,
        window_started_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS login_attempt`);
  }
}
