import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * portal_user.failed_login_count and locked_until are unused since the lockout moved to
 * login_attempt (LoginAttempts1763800500100): keyed by the e-mail whether or not a user has it,
 * decided in one upsert before the password check. No release since 1.0.0 reads or writes them.
 */
export class PortalUserDropLockoutColumns1795699994852 implements MigrationInterface {
  name = 'PortalUserDropLockoutColumns1795699994852';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE portal_user DROP COLUMN failed_login_count, DROP COLUMN locked_until`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE portal_user ADD COLUMN failed_login_count integer NOT NULL DEFAULT 0,
                               ADD COLUMN locked_until timestamptz`,
    );
  }
}
