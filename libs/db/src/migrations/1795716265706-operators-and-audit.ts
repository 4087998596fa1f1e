import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Named operators and the audit log (docs/operators.md).
 *
 * - operator: a person who runs the platform, with one role; e-mails are stored lower-cased.
 *   Disabled operators stay (the audit log names them). The second factor: the TOTP secret
 *   (encrypted like every secret at rest), one being enrolled, the last time step used (a code
 *   works once), and the SHA-256 of each unused recovery code.
 * - operator_token: personal API tokens; only the SHA-256 of the plaintext is stored.
 * - operator_session: console sessions (cookie); only the SHA-256 of the token; `last_seen_at`
 *   gives the idle expiry.
 * - audit_log: every admin action, append-only. `seq` is the append order the hash chain follows
 *   (each row carries the previous row's hash); `id` is the public id. No foreign keys: the log
 *   outlives what it names. A trigger refuses every UPDATE, DELETE and TRUNCATE, so no code path
 *   (nor a mistaken statement) can change it; the chain shows a change made around the trigger.
 *   The institutions' security activity (staff's key, webhook, widget and sign-in events) is
 *   recorded here too, with the caller's IP address.
 */
export class OperatorsAndAudit1795716265706 implements MigrationInterface {
  name = 'OperatorsAndAudit1795716265706';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE operator (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        name text NOT NULL,
        password_hash text NOT NULL,
        role text NOT NULL CHECK (role IN ('admin', 'author', 'approver', 'support')),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        last_login_at timestamptz,
        disabled_at timestamptz,
        totp_secret text,
        totp_pending_secret text,
        totp_enabled_at timestamptz,
        totp_last_step bigint,
        recovery_code_hashes text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT operator_email_key UNIQUE (email),
        CHECK (email = lower(email))
      )`);
    await q.query(`
      CREATE TABLE operator_token (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        operator_id uuid NOT NULL REFERENCES operator (id) ON DELETE CASCADE,
        name text NOT NULL,
        token_hash text NOT NULL,
        hint text NOT NULL,
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT operator_token_hash_key UNIQUE (token_hash)
      )`);
    await q.query(`CREATE INDEX operator_token_operator_idx ON operator_token (operator_id)`);
    await q.query(`
      CREATE TABLE operator_session (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        operator_id uuid NOT NULL REFERENCES operator (id) ON DELETE CASCADE,
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        CONSTRAINT operator_session_token_hash_key UNIQUE (token_hash)
      )`);
    await q.query(`CREATE INDEX operator_session_operator_idx ON operator_session (operator_id)`);
    await q.query(`
      CREATE TABLE audit_log (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        actor_type text NOT NULL CHECK (actor_type IN ('operator', 'break_glass', 'staff', 'system')),
        actor_id uuid,
        actor_email text,
        action text NOT NULL,
        resource_type text NOT NULL,
        resource_id text,
        institution_id uuid,
        before jsonb,
        after jsonb,
        request_id text,
        ip text,
        prev_hash text,
        hash text NOT NULL,
        CONSTRAINT audit_log_id_key UNIQUE (id)
      )`);
    await q.query(`CREATE INDEX audit_log_created_idx ON audit_log (created_at, id)`);
    await q.query(
      `CREATE INDEX audit_log_resource_idx ON audit_log (resource_type, resource_id, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX audit_log_actor_idx ON audit_log (actor_type, actor_id, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX audit_log_institution_idx ON audit_log (institution_id, created_at, id)`,
    );
    await q.query(`
      CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await q.query(`
      CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
        FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`);
    await q.query(`
      CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS audit_log`);
    await q.query(`DROP FUNCTION IF EXISTS audit_log_append_only()`);
    await q.query(`DROP TABLE IF EXISTS operator_session`);
    await q.query(`DROP TABLE IF EXISTS operator_token`);
    await q.query(`DROP TABLE IF EXISTS operator`);
  }
}
