import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * jit off for the whole database, as the pools' startup option sets it per connection: a pooler
 * in transaction mode refuses startup options (DATABASE_DIRECT_URL set), and every statement of
 * the service is short (JIT spent 50 ms compiling a 2 ms funnel statement). Applies to sessions
 * opened afterwards, on replicas too. Without the right (not the database's owner) it notes so
 * and the deployment guide says what to run.
 */
export class DatabaseJitOff1795703178476 implements MigrationInterface {
  name = 'DatabaseJitOff1795703178476';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
      EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'jit left as it is: run ALTER DATABASE % SET jit = off as its owner', current_database();
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('ALTER DATABASE %I RESET jit', current_database());
      EXCEPTION WHEN insufficient_privilege THEN NULL;
      END $$`);
  }
}
