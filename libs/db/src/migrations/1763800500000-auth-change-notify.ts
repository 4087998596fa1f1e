import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API processes keep the rows authentication reads (an API key joined with its institution) in
 * memory for a few seconds. Every change that can refuse or reshape a key — revocation, expiry,
 * scopes, name, deletion; an institution's status, plan, name or rate limits — notifies channel
 * `auth_changed` at commit, whatever code or SQL made it, and every api process drops its cache.
 * Payload: `key:<id>` or `institution:<id>`. `last_used_at` (written once a minute per key) is not
 * among the columns, so key use never empties the caches.
 */
export class AuthChangeNotify1763800500000 implements MigrationInterface {
  name = 'AuthChangeNotify1763800500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION auth_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('auth_changed', TG_ARGV[0] || ':' || COALESCE(NEW.id, OLD.id)::text);
        RETURN NULL;
      END $$;
      CREATE TRIGGER api_key_auth_changed
        AFTER UPDATE OF revoked_at, expires_at, scopes, name, key_hash, institution_id OR DELETE ON api_key
        FOR EACH ROW EXECUTE FUNCTION auth_changed_notify('key');
      CREATE TRIGGER institution_auth_changed
        AFTER UPDATE OF status, plan, name, rate_limits OR DELETE ON institution
        FOR EACH ROW EXECUTE FUNCTION auth_changed_notify('institution');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS api_key_auth_changed ON api_key;
      DROP TRIGGER IF EXISTS institution_auth_changed ON institution;
      DROP FUNCTION IF EXISTS auth_changed_notify();
    `);
  }
}
