import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Portal users gain the roles developer, analyst and support (docs/portal.md); admin and member
 * keep their meaning.
 */
export class StaffRoles1795709520880 implements MigrationInterface {
  name = 'StaffRoles1795709520880';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE portal_user DROP CONSTRAINT portal_user_role_check,
        ADD CONSTRAINT portal_user_role_check
          CHECK (role IN ('admin', 'member', 'developer', 'analyst', 'support'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE portal_user DROP CONSTRAINT portal_user_role_check,
        ADD CONSTRAINT portal_user_role_check CHECK (role IN ('admin', 'member'))`);
  }
}
