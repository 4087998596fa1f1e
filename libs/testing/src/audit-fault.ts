import type { DataSource } from 'typeorm';

/**
 * Makes every append of one audit action fail (a trigger raising on its INSERT) until the
 * returned function is called: a change whose entry is written in its own transaction must then
 * roll back with it. The trigger's name is per action, so tests may stack them.
 */
export async function failAuditAppends(
  db: DataSource,
  action: string,
): Promise<() => Promise<void>> {
  const name = `test_fail_audit_${action.replace(/[^a-z0-9]/gi, '_')}`;
  await db.query(`
    CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.action = '${action.replace(/'/g, "''")}' THEN
        RAISE EXCEPTION 'test: audit append of % refused', NEW.action;
      END IF;
      RETURN NEW;
    END $$`);
  await db.query(`DROP TRIGGER IF EXISTS ${name} ON audit_log`);
  await db.query(
    `CREATE TRIGGER ${name} BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  );
  return async () => {
    await db.query(`DROP TRIGGER IF EXISTS ${name} ON audit_log`);
    await db.query(`DROP FUNCTION IF EXISTS ${name}()`);
  };
}
